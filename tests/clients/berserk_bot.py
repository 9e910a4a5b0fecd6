"""A lichess bot written with berserk (lichess's own Python client, from PyPI), pointed at moot.

    berserk_bot.py BASE_URL TOKEN ai LEVEL
        challenges the Computer at LEVEL and plays the game out: a mate in one when it has one,
        else the biggest capture, else the first legal move in a seeded random order.
    berserk_bot.py BASE_URL TOKEN person NAME MOVES
        challenges NAME (rated, 5+0, as white) and plays MOVES (comma-separated UCI) in turn.
    berserk_bot.py BASE_URL TOKEN swiss ID
        joins tournament ID and plays the game it is paired in, as against the Computer (after
        trying to abort it, which an event's game refuses).
    berserk_bot.py BASE_URL TOKEN serve N
        plays the next N games that start on its event stream (a series' games), each to its end.
    berserk_bot.py BASE_URL TOKEN talk NAME
        challenges NAME (rated, 5+0, as white) twice: in the first game says "good luck", waits
        for NAME's chatLine, plays e2e4 offering a draw (lichess's `offeringDraw`) and waits for
        the game's end; the second it aborts before anyone moves.

Every move is checked: the bot's own move must come back in the next gameState, and the whole
`moves` list must replay legally (python-chess). Prints one JSON line: what it saw.
"""
import json
import random
import sys

import berserk
import chess
import requests


def replay(moves):
    board = chess.Board()
    for m in moves:
        board.push_uci(m)  # raises on an illegal move
    return board


def choose_move(board, rng):
    """A mate in one when there is one, else the biggest capture, else a random legal move."""
    legal = list(board.legal_moves)
    for m in legal:
        board.push(m)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return m
    captures = [m for m in legal if board.is_capture(m)]
    if captures:
        def gain(m):
            p = board.piece_at(m.to_square)
            return p.piece_type if p else 1
        return max(captures, key=gain)
    rng.shuffle(legal)
    return legal[0]


def serve(client, n):
    """The `serve` mode: plays the next N games that start on the event stream, each to its
    end, one at a time, as a bot entered in a series (`moot arena`) does."""
    events = client.bots.stream_incoming_events()
    rng = random.Random(7)
    played = []
    for e in events:
        if e["type"] != "gameStart":
            continue
        game_id = e["game"]["gameId"]
        me = chess.WHITE if e["game"]["color"] == "white" else chess.BLACK
        stream = client.bots.stream_game_state(game_id)
        full = next(stream)
        state = full["state"]
        while True:
            board = replay(state["moves"].split())
            if state["status"] != "started":
                break
            if board.turn == me:
                client.bots.make_move(game_id, choose_move(board, rng).uci())
            for line in stream:
                if line.get("type") == "gameState":
                    state = line
                    break
        played.append({"game": game_id, "status": state["status"], "winner": state.get("winner"),
                       "plies": len(state["moves"].split())})
        if len(played) == n:
            break
    print(json.dumps({"played": played}))


def talk(base, token, client, name):
    """The `talk` mode: chat both ways, a draw offered with a move, an abort."""
    events = client.bots.stream_incoming_events()
    seen = {}
    for round_ in ("chat", "abort"):
        client.challenges.create(name, rated=True, clock_limit=300, clock_increment=0, color="white")
        for e in events:
            if e["type"] == "gameStart":
                game_id = e["game"]["gameId"]
                break
        stream = client.bots.stream_game_state(game_id)
        full = next(stream)
        assert full["type"] == "gameFull", full
        if round_ == "abort":
            client.bots.abort_game(game_id)
            for state in stream:
                if state.get("type") == "gameState":
                    seen["aborted"] = state["status"]
                    break
            continue
        client.bots.post_message(game_id, "good luck")
        chat = []
        for line in stream:
            if line.get("type") == "chatLine":
                chat.append(line)
                if line["username"] != full["white"]["name"]:
                    break
        seen["chat"] = chat
        r = requests.post(
            f"{base}/api/bot/game/{game_id}/move/e2e4",
            params={"offeringDraw": "true"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 200, r.text
        states = []
        for state in stream:
            if state.get("type") == "gameState":
                states.append({k: state.get(k) for k in ("moves", "status", "wdraw", "bdraw")})
                if state["status"] != "started":
                    break
        seen["states"] = states
        try:
            client.bots.post_message(game_id, "gg")
            seen["chat_after"] = "taken"
        except berserk.exceptions.ResponseError as e:
            seen["chat_after"] = str(e)
    print(json.dumps(seen))


def main():
    base, token, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    client = berserk.Client(session=berserk.TokenSession(token), base_url=base)
    account = client.account.get()
    events = client.bots.stream_incoming_events()
    colour = "white"
    if mode == "talk":
        return talk(base, token, client, sys.argv[4])
    if mode == "serve":
        return serve(client, int(sys.argv[4]))
    if mode == "ai":
        made = client.challenges.create_ai(level=int(sys.argv[4]), clock_limit=600, clock_increment=0, color="white")
        assert made["source"] == "ai", made
        script = None
    elif mode == "swiss":
        client.tournaments.join_swiss(sys.argv[4])
        made = None
        script = None
    else:
        made = client.challenges.create(sys.argv[4], rated=True, clock_limit=300, clock_increment=0, color="white")
        assert made["challenger"]["name"] == account["username"], made
        assert made["destUser"]["name"].lower() == sys.argv[4].lower(), made
        assert made["rated"] is True and made["timeControl"]["show"] == "5+0", made
        script = sys.argv[5].split(",")
    seen_events = []
    game_id = None
    for e in events:
        seen_events.append(e["type"])
        if e["type"] == "gameStart":
            game_id = e["game"]["gameId"]
            colour = e["game"]["color"]
            assert made is None or colour == "white", e
            break
    assert made is None or game_id == str(made["id"]), (game_id, made)
    me = chess.WHITE if colour == "white" else chess.BLACK

    stream = client.bots.stream_game_state(game_id)
    full = next(stream)
    assert full["type"] == "gameFull", full
    assert full[colour]["name"] == account["username"], full
    abort_refused = None
    if mode == "swiss":
        try:
            client.bots.abort_game(game_id)
        except berserk.exceptions.ResponseError as e:
            abort_refused = str(e)
    rng = random.Random(7)
    mine = []
    states = 0
    last = full["state"]

    def choose(board):
        return choose_move(board, rng)

    def act(state):
        moves = state["moves"].split() if state["moves"] else []
        board = replay(moves)
        if mine:
            assert mine[-1] in moves, ("my move came back", mine[-1], moves)
        if state["status"] != "started" or board.turn != me:
            return
        if script is not None:
            mv = script[len(mine)]
        else:
            mv = choose(board).uci()
        client.bots.make_move(game_id, mv)
        mine.append(mv)

    act(last)
    for state in stream:
        if state.get("type") != "gameState":
            continue
        states += 1
        last = state
        if state["status"] != "started":
            break
        act(state)
    moves = last["moves"].split() if last["moves"] else []
    board = replay(moves)
    finish = None
    for e in events:
        seen_events.append(e["type"])
        if e["type"] == "gameFinish":
            finish = e["game"]
            break
    print(json.dumps({
        "account": account["username"],
        "title": account.get("title"),
        "game": game_id,
        "moves": moves,
        "mine": mine,
        "status": last["status"],
        "winner": last.get("winner"),
        "checkmate": board.is_checkmate(),
        "states": states,
        "events": seen_events,
        "finish": finish and {"status": finish["status"]["name"], "winner": finish.get("winner")},
        "clock": full.get("clock"),
        "colour": colour,
        "abort_refused": abort_refused,
    }))


main()
