// Werewolf's part of the town's page: the notice board (who signed it, and a button for the
// person signed in) and the matches' buildings, each with its page.
(() => {
  let onBoard = false, boardKey = null;
  // Where the person signed in stands on the notice board, and their door once the match begins.
  function showBoard(b) {
    const a = b.matchAssignment;
    onBoard = !a && !!b.queue && b.queue.position != null;
    $("sign").hidden = !!a;
    $("sign").textContent = onBoard ? "Take my name off" : "Sign the notice board";
    if (a) {
      $("my-place").replaceChildren("Game starting… your door is ", el("code", {}, b.door || ""),
        " in the Town Hall: ", el("a", {href: b.page, id: "my-match"}, "watch it here"), ".");
    } else if (b.error) {
      $("my-place").textContent = b.error.message;
    } else {
      $("my-place").textContent = onBoard ? `You are number ${b.queue.position} of ${b.queue.requiredPlayers}.` : "";
    }
  }
  function myBoard() {
    fetch("/werewolf/board").then(r => r.json()).then(showBoard);
  }
  $("sign").addEventListener("click", async () => {
    const r = await fetch("/werewolf/board", { method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": me.csrf || "" },
      body: JSON.stringify({ sign: !onBoard }) });
    if (r.ok) myBoard(); else showBoard(await r.json());
  });
  townPart("werewolf", {
    draw(ww) {
      $("queue").replaceChildren(el("p", {id: "board"},
        ww.queue.length ? `On the board (${ww.queue.length} of 8): ${ww.queue.join(", ")}` : "Nobody has signed the board."));
      const item = m => el("li", {"data-match": m.matchId},
        el("a", {href: m.page}, `Werewolf Game #${m.number}`),
        m.ended ? " (over: watch the replay)" : ` (day ${m.day}, ${m.phase.toLowerCase().replace("_", " ")})`);
      const running = ww.matches.filter(m => !m.ended), over = ww.matches.filter(m => m.ended);
      $("matches").replaceChildren(list(running.map(item), "No match is being played."),
        ...(over.length ? [el("h4", {}, "Finished"), list(over.map(item), "")] : []));
    },
    signedIn(me) {
      $("my-board").hidden = !me.signedIn;
      if (me.signedIn) myBoard();
    },
    // Asked again only when the board or the matches changed (each answer is a read).
    changed(town) {
      const key = JSON.stringify([town.werewolf.queue, town.werewolf.matches.length]);
      if (me.signedIn && key !== boardKey) { boardKey = key; myBoard(); }
    },
  });
})();
