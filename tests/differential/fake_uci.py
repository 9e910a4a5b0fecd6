"""A tiny UCI engine for tests: it answers every `go` with the first legal move (in sorted
UCI order) of the last position it was given, so a test knows exactly what it will play."""

import sys

import chess

board = chess.Board()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name fake-uci", flush=True)
        print("uciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position" and words[1] == "fen":
        board = chess.Board(" ".join(words[2:8]))
    elif words[0] == "go":
        print("bestmove " + sorted(m.uci() for m in board.legal_moves)[0], flush=True)
    elif words[0] == "quit":
        break
