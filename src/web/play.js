// What a game page needs to play from the browser: who is signed in, and a way to do what a
// telnet player types. A click is sent as the line its verb reads (`drop 4 #12`), through the
// same console as everything typed on the web, so a button does exactly what the command does.
"use strict";
window.moot = (() => {
  let me = null;
  async function who() {
    if (me) return me;
    try { me = await (await fetch("/me")).json(); } catch (_) { me = { signedIn: false }; }
    return me;
  }
  // Runs `line` as the signed-in person; resolves to the lines moot answered (or its refusal).
  async function act(line) {
    const m = await who();
    if (!m.signedIn) return ["Sign in to play from this page."];
    const r = await fetch("/console/line", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": m.csrf },
      body: JSON.stringify({ line }),
    });
    let body = null;
    try { body = await r.json(); } catch (_) { body = null; }
    if (!r.ok) return [body && body.error ? body.error.message : "moot did not answer (" + r.status + ")."];
    return body.lines;
  }
  // Follows game `path`'s frames (its `live` stream) once who is signed in is known, which
  // decides what the page offers them: `draw(frame, me)` for each; it stops after the last.
  async function follow(path, draw, status) {
    const m = await who();
    const live = new EventSource(path + "/live");
    live.addEventListener("frame", e => {
      const f = JSON.parse(e.data);
      draw(f, m);
      if (f.over) live.close();
    });
    live.onerror = () => {
      if (live.readyState !== EventSource.CLOSED) status.textContent = "Reconnecting…";
    };
  }
  return { who, act, follow };
})();
