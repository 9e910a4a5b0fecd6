"""Reads a PGN from a URL with python-chess (which nobody here wrote) and prints what it read:
the tags, the mainline in UCI, each move's comment, and whether python-chess met any error.

Usage: python pgn_moves.py URL
"""

import io
import json
import sys
import urllib.request

import chess.pgn


def main():
    with urllib.request.urlopen(sys.argv[1]) as r:
        text = r.read().decode()
        kind = r.headers["content-type"]
    game = chess.pgn.read_game(io.StringIO(text))
    print(json.dumps({
        "content_type": kind,
        "headers": dict(game.headers),
        "moves": [m.uci() for m in game.mainline_moves()],
        "comments": [node.comment for node in game.mainline()],
        "errors": [str(e) for e in game.errors],
        "end_fen": game.end().board().fen(),
    }))


if __name__ == "__main__":
    main()
