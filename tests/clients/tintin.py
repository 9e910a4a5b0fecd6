"""Drives TinTin++ (Debian's /usr/games/tt++) in a pseudo-terminal, with clients/tintin/moot.tin as
written, against a running moot; prints what happened as one JSON line.

    tintin.py PORT COLUMNS TRANSCRIPT_FILE

TinTin++ needs a terminal, so it gets a pty of COLUMNS x 30; it reports that width with NAWS.
The script types like a person: create a character, walk, talk, ask for help, quit. With
`#config {debug telnet} on` TinTin++ also prints the telnet negotiation it sees (GMCP included).
"""
import fcntl, json, os, pty, re, select, struct, sys, termios, time

port, columns, transcript = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
tin = os.path.join(here, "..", "..", "clients", "tintin", "moot.tin")

pid, fd = pty.fork()
if pid == 0:
    os.execv("/usr/games/tt++", ["tt++", "-G", "-e", f"#variable {{moot_port}} {{{port}}}",
                                 "-e", "#config {debug telnet} on", tin])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, columns, 0, 0))
screen = b""


def read_for(seconds, until=None):
    global screen
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                screen += os.read(fd, 65536)
            except OSError:
                return
        if until and until in screen:
            return


def typed(line, until=None, seconds=5):
    os.write(fd, line.encode() + b"\r")
    read_for(seconds, until)


read_for(10, b"To leave:")
typed("create Tina pw-Tina-moot", b"$#$xmcp")
typed("east", b"Chess Parlour")
typed("say Hello from TinTin++", b"You say")
typed("help @token", b"stops working at once")
typed("@quit", b"*** Disconnected ***")
read_for(1)
os.write(fd, b"#end\r")
read_for(2)
try:
    os.kill(pid, 9)
except ProcessLookupError:
    pass

text = screen.decode("utf-8", "replace")
plain = re.sub(r"\x1b\[[0-9;?>=]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\x1b[=>78]", "", text).replace("\r", "")
with open(transcript, "w") as f:
    f.write(plain)
lines = [l.rstrip() for l in plain.split("\n")]
print(json.dumps({
    "created": "*** Created ***" in plain,
    "walked": "Chess Parlour" in plain,
    "said": 'You say, "Hello from TinTin++"' in plain,
    "help": "stops working at once" in plain,
    "quit": "*** Disconnected ***" in plain,
    "naws": "NAWS" in plain,
    "gmcp": [l for l in lines if "GMCP" in l][:20],
    "widest_help": max((len(l) for l in lines if "token" in l.lower()), default=0),
}))
