#!/usr/bin/env python3
"""Makes benches/telnet_load's world as a LambdaMOO database, for ToastStunt (or another
LambdaMOO server), so that `telnet_load --against-moo` measures moot and a MOO on one load.

    python3 benches/moo/make_db.py --moo /tmp/toast/build/moo \
        --minimal /tmp/toast/src/Minimal.db --out /tmp/toast/bench.db

It starts the server on Minimal.db on a free loopback port, connects (Minimal.db's
#0:do_login_command lets every connection in as the wizard), gives #2 an `eval` verb (the
server turns a line `;CODE` into `eval CODE`), and builds the world with eval'd code; then
shutdown() writes the database to --out.

The world is the one telnet_load writes for moot, and the verbs answer with the same lines, so
the load generator drives both unchanged:

- 50 rooms "Bench Room 00".."Bench Room 49"; room 00 is the start (`home`) and has exits
  r01..r49, each other room an exit `out`.
- Characters b0000.. (--players, 1000), password `bench`, logged in with
  `connect <name> <password>`; each starts in room i % 50 (as telnet_load's seed_accounts).
- `say TEXT` prints `You say, "TEXT"` to the speaker and `<name> says, "TEXT"` to everyone else
  in the room; `look` prints the room's name, its description, who else is here
  ("b0001 and b0002 are here.") and its exits ("Exits: r01 (Bench Room 01), ..."), the lines
  moot prints.
- `home`, `@quit` (boot_player: the server says `*** Disconnected ***`).

The verbs do what LambdaCore's do, a little less: `say` notifies each occupant with notify()
itself rather than through $room:announce and each player's :tell verb; `look` concatenates
the names in one loop of its own rather than calling each one's :title() and
$string_utils:english_list (of the ways tried, the cheapest on ToastStunt: a third of the CPU of
building a list of the names and one tostr() of it, in a room of 500); and the exits line is
kept in a property rather than built at each look. Every shortcut is in the MOO's favour, so a
ratio measured on this database is, if anything, moot's lower bound.

A character who disconnects is taken out of the room (kept in .last_room and put back on the
next login), so that the room holds those connected, as moot's rooms do, and `look` lists them.

$server_options: max_queued_output is raised to 16 MiB (the default, 64 KiB, drops lines of a
client that reads slower than a crowded room talks, and a client that loses its own echo waits
for ever), and no_name_lookup is set (no reverse DNS lookup for each connection).
"""

import argparse
import os
import socket
import subprocess
import sys
import time

ROOMS = 50


def lit(v):
    """A Python value as a MOO literal."""
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "{" + ", ".join(lit(x) for x in v) + "}"
    return str(v)


def room_name(i):
    return f"Bench Room {i:02}"


# The verbs, as MOO code. `player` is the one who typed the command (in user_connected too).

SAY = r"""
notify(player, "You say, \"" + argstr + "\"");
msg = player.name + " says, \"" + argstr + "\"";
for who in (this.contents)
  if (who != player)
    notify(who, msg);
  endif
endfor
"""

LOOK = r"""
notify(player, this.name);
notify(player, this.description);
others = setremove(this.contents, player);
n = length(others);
if (n == 1)
  notify(player, others[1].name + " is here.");
elseif (n > 1)
  s = "";
  for i in [1..n - 2]
    s = s + others[i].name + ", ";
  endfor
  notify(player, s + others[n - 1].name + " and " + others[n].name + " are here.");
endif
notify(player, this.exits_line);
"""

GO = r"""
if (maphaskey(this.exits, verb))
  move(player, this.exits[verb]);
  player.location:look();
else
  notify(player, "You can't go that way.");
endif
"""

HOME = r"""
if (player.location == #0.bench_start)
  notify(player, "You are already home.");
else
  notify(player, "You click your heels three times.");
  move(player, #0.bench_start);
  player.location:look();
endif
"""

QUIT = r"""
boot_player(player);
"""

LOGIN = r"""
if (length(args) == 3 && args[1] == "connect" && maphaskey(this.bench_players, args[2]))
  who = this.bench_players[args[2]];
  if (who.password == args[3])
    return who;
  endif
endif
if (args)
  notify(player, "Either that player does not exist, or has a different password.");
endif
return 0;
"""

CONNECTED = r"""
who = args[1];
if (!valid(who.location) && valid(who.last_room))
  move(who, who.last_room);
endif
who.location:look();
"""

DISCONNECTED = r"""
who = args[1];
if (valid(who) && is_player(who) && valid(who.location))
  who.last_room = who.location;
  move(who, #-1);
endif
"""

EVAL = r"""
try
  r = eval(argstr);
except e (ANY)
  r = {0, e};
endtry
notify(player, "=> " + toliteral(r));
"""


def code(text):
    return lit([line for line in text.strip().splitlines()])


class Moo:
    def __init__(self, port):
        deadline = time.time() + 20
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.sock.settimeout(60)
        self.buf = b""

    def send(self, line):
        self.sock.sendall(line.encode() + b"\r\n")

    def line(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise RuntimeError("the server closed the connection")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line.rstrip(b"\r").decode(errors="replace")

    def until(self, *prefixes):
        while True:
            line = self.line()
            if line.startswith(prefixes):
                return line
            print("  moo: " + line, file=sys.stderr)

    def program(self, ref, text):
        """Programs a verb with the server's own `.program`."""
        self.send(f".program {ref}")
        for line in text.strip().splitlines():
            self.send(line)
        self.send(".")
        answer = self.until("Verb programmed.", "Verb not programmed.")
        if answer != "Verb programmed.":
            sys.exit(f"{ref} was not programmed")

    def eval(self, text):
        """Runs MOO code (one line) through #2:eval; returns the literal of its value."""
        self.send(";" + text)
        answer = self.until("=> ")[3:]
        if not answer.startswith("{1, "):
            sys.exit(f"eval failed: {answer}\n  code: {text}")
        return answer[4:-1]


def verb(obj, names, argspec, text):
    """MOO code that adds a verb owned by the wizard and programs it."""
    return (
        f'add_verb({obj}, {{#3, "rxd", {lit(names)}}}, {lit(argspec)}); '
        f"e = set_verb_code({obj}, {lit(names.split()[0])}, {code(text)}); "
        f"e && raise(E_INVARG, toliteral(e)); "
    )


def build(moo, players):
    moo.program("#2:eval", EVAL)
    # Server options, read by load_server_options().
    moo.eval(
        "so = create(#1); so.name = \"server options\"; "
        'add_property(#0, "server_options", so, {#3, "r"}); '
        'add_property(so, "max_queued_output", 16777216, {#3, "r"}); '
        'add_property(so, "no_name_lookup", 1, {#3, "r"}); '
        "load_server_options(); return so;"
    )
    # The room class: say and look first, so that they are found first.
    rc = moo.eval(
        'rc = create(#1); rc.name = "bench room class"; '
        'add_property(rc, "description", "", {#3, "r"}); '
        'add_property(rc, "exits", [], {#3, "r"}); '
        'add_property(rc, "exits_line", "", {#3, "r"}); '
        + verb("rc", "say", ["any", "any", "any"], SAY)
        + verb("rc", "look", ["none", "none", "none"], LOOK)
        + verb(
            "rc",
            " ".join(["out"] + [f"r{i:02}" for i in range(1, ROOMS)]),
            ["none", "none", "none"],
            GO,
        )
        + "return rc;"
    )
    rooms = [room_name(i) for i in range(ROOMS)]
    moo.eval(
        f"rooms = {{}}; for n in ({lit(rooms)}) r = create({rc}); r.name = n; "
        'r.description = "A room for load."; rooms = {@rooms, r}; endfor; '
        'add_property(#0, "bench_rooms", rooms, {#3, "r"}); '
        'add_property(#0, "bench_start", rooms[1], {#3, "r"}); return rooms;'
    )
    # Exits: room 00 to each other room, each other room `out` to room 00.
    line0 = "Exits: " + ", ".join(f"r{i:02} ({room_name(i)})" for i in range(1, ROOMS)) + "."
    moo.eval(
        "rooms = #0.bench_rooms; m = []; "
        f'for i in [2..{ROOMS}] k = "r" + (i <= 10 ? "0" | "") + tostr(i - 1); '
        "m[k] = rooms[i]; "
        f'rooms[i].exits = ["out" -> rooms[1]]; rooms[i].exits_line = {lit("Exits: out (" + room_name(0) + ").")}; '
        f"endfor; rooms[1].exits = m; rooms[1].exits_line = {lit(line0)}; return length(m);"
    )
    # The player class and the characters.
    moo.eval(
        'pc = create(#1); pc.name = "bench player class"; '
        'add_property(pc, "password", "", {#3, ""}); '
        'add_property(pc, "last_room", #-1, {#3, "r"}); '
        + verb("pc", "home", ["none", "none", "none"], HOME)
        + verb("pc", "@quit", ["none", "none", "none"], QUIT)
        + 'add_property(#0, "bench_player_class", pc, {#3, "r"}); '
        'add_property(#0, "bench_players", [], {#3, "r"}); return pc;'
    )
    batch = 100
    for start in range(0, players, batch):
        end = min(start + batch, players) - 1
        moo.eval(
            "pc = #0.bench_player_class; rooms = #0.bench_rooms; m = #0.bench_players; "
            f"for i in [{start}..{end}] n = tostr(i); "
            'while (length(n) < 4) n = "0" + n; endwhile; '
            'p = create(pc); p.name = "b" + n; p.owner = p; set_player_flag(p, 1); '
            f'p.password = "bench"; p.last_room = rooms[i % {ROOMS} + 1]; m[p.name] = p; '
            "endfor; #0.bench_players = m; return length(m);"
        )
    # Logging in and out.
    moo.eval(
        verb("#0", "user_connected", ["this", "none", "this"], CONNECTED)
        + verb(
            "#0",
            "user_disconnected user_client_disconnected",
            ["this", "none", "this"],
            DISCONNECTED,
        )
        + f'e = set_verb_code(#0, "do_login_command", {code(LOGIN)}); '
        "e && raise(E_INVARG, toliteral(e)); return 1;"
    )
    # No eval left behind; then write the database and stop.
    moo.send(';set_verb_code(#2, "eval", {}); shutdown("bench db written");')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moo", required=True, help="the server binary (ToastStunt's `moo`)")
    ap.add_argument("--minimal", required=True, help="Minimal.db, from the server's source")
    ap.add_argument("--out", required=True, help="the database to write")
    ap.add_argument("--players", type=int, default=1000)
    a = ap.parse_args()
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    if os.path.exists(a.out):
        os.remove(a.out)
    log = open(a.out + ".log", "w")
    server = subprocess.Popen(
        [a.moo, "-4", "127.0.0.1", "--no-ipv6", a.minimal, a.out, "-p", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        moo = Moo(port)
        # Minimal.db's #0:do_login_command answers the wizard to the call the server makes
        # when a connection opens, before any line.
        moo.until("*** Connected ***")
        build(moo, a.players)
        server.wait(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    if server.returncode != 0 or not os.path.exists(a.out):
        sys.exit(f"the server exited with {server.returncode}; see {a.out}.log")
    print(f"wrote {a.out}: {ROOMS} rooms, {a.players} characters (log: {a.out}.log)")


if __name__ == "__main__":
    main()
