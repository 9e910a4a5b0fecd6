"""Differential test: random chess games played through moot's telnet face, each position's
legal moves and each game's ending compared with python-chess (which nobody here wrote).

moot ends a game by itself when the position reached is mate, stalemate, insufficient
material, a third occurrence, or the halfmove clock reaches 100, checked in that order; the
python-chess side of the comparison applies the same rules with python-chess's own functions
(is_checkmate, is_insufficient_material, legal moves, is_repetition(3), halfmove_clock).

Usage: python chess_vs_python_chess.py HOST PORT GAMES SEED
Prints one line per game and a closing "N passed, N failed".
"""

import random
import socket
import sys

import chess


class Telnet:
    """A MUD client that cuts each command's output out of the stream with PREFIX/SUFFIX."""

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.n = 0

    def send(self, line):
        self.sock.sendall(line.encode() + b"\r\n")

    def line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("moot closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line.decode()

    def until(self, marker):
        while True:
            if marker in self.line():
                return

    def command(self, cmd):
        self.n += 1
        start, end = f"<<<{self.n}", f">>>{self.n}"
        # One write: three small ones would wait on Nagle's algorithm and delayed ACKs.
        self.sock.sendall(f"PREFIX {start}\r\nSUFFIX {end}\r\n{cmd}\r\n".encode())
        self.until(start)
        out = []
        while True:
            line = self.line()
            if line == end:
                return out
            out.append(line)


def expected_ending(board):
    if board.is_checkmate():
        return "checkmate"
    if board.is_insufficient_material():
        return "insufficient material"
    if not any(board.generate_legal_moves()):
        return "stalemate"
    if board.is_repetition(3):
        return "threefold repetition"
    if board.halfmove_clock >= 100:
        return "the fifty-move rule"
    return None


def moot_ending(client, game):
    for line in client.command("games"):
        if line.startswith(f"#{game} (chess):"):
            if " to move, move " in line:
                return None
            for reason in ["checkmate", "insufficient material", "stalemate", "threefold repetition", "the fifty-move rule"]:
                if f" by {reason} (" in line:
                    return reason
            raise AssertionError(f"cannot read the ending of {line!r}")
    raise AssertionError(f"game #{game} is not listed")


def play(host, port, rng, index, tag):
    white, black = Telnet(host, port), Telnet(host, port)
    names = [f"W{tag}x{index}", f"B{tag}x{index}"]
    for client, name in zip([white, black], names):
        client.until("To leave:")
        client.send(f"create {name} pw-{name}-moot")
        client.until("*** Created ***")
        # The move lists are read whole, so they must not be word-wrapped.
        client.command("@wrap off")
        client.command("east")
    white.command(f"challenge {names[1]} as white")
    accepted = black.command(f"accept {names[0]}")
    game = accepted[0].split("game #")[1].split(",")[0]
    board = chess.Board()
    plies = 0
    while True:
        mover = white if board.turn == chess.WHITE else black
        listed = mover.command(f"moves #{game}")
        ending = moot_ending(mover, game)
        want = expected_ending(board)
        if ending != want:
            raise AssertionError(f"game {index} ply {plies} {board.fen()}: moot says {ending}, python-chess {want}")
        if want is not None:
            for c in (white, black):
                c.sock.close()
            return plies, want
        # "Legal moves for white in game #1: a3 ... Nf3 (in UCI: a2a3 ... g1f3)."
        san_part, uci_part = listed[0].split(": ", 1)[1].split(" (in UCI: ", 1)
        got = set(uci_part.rstrip(").").split())
        expected = {m.uci() for m in board.legal_moves}
        if got != expected:
            raise AssertionError(
                f"game {index} ply {plies} {board.fen()}: only moot {sorted(got - expected)}, only python-chess {sorted(expected - got)}"
            )
        # The same moves in SAN, as python-chess writes them (without the check marks).
        got_san = set(san_part.split())
        expected_san = {board.san(m).rstrip("+#") for m in board.legal_moves}
        if got_san != expected_san:
            raise AssertionError(
                f"game {index} ply {plies} {board.fen()}: SAN only moot {sorted(got_san - expected_san)}, only python-chess {sorted(expected_san - got_san)}"
            )
        # In every third game, often play one's previous move backwards, so that positions
        # repeat and threefold repetition is tested as well as the other endings.
        back = None
        if len(board.move_stack) >= 2:
            prev = board.move_stack[-2]
            back = chess.Move(prev.to_square, prev.from_square).uci()
        if index % 3 == 0 and back in expected and rng.random() < 0.35:
            move = back
        else:
            move = rng.choice(sorted(expected))
        answer = mover.command(f"move {move} on #{game}")
        # The answer comes first, then the board the move draws.
        if not answer or not answer[0].startswith("You play "):
            raise AssertionError(f"game {index} ply {plies}: {move} refused: {answer}")
        board.push_uci(move)
        plies += 1


def main():
    host, port, games, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    passed = failed = 0
    total_plies = 0
    endings = {}
    for i in range(games):
        try:
            plies, ending = play(host, port, rng, i, seed)
            total_plies += plies
            endings[ending] = endings.get(ending, 0) + 1
            passed += 1
        except AssertionError as e:
            print(f"FAIL: {e}")
            failed += 1
    print(f"{total_plies} plies compared; endings: {endings}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
