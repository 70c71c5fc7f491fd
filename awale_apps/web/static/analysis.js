// The analysis board of `awale serve`: replays a game (the page's own, one of a records file, an uploaded record or
// a position pasted), steps through it, shows an engine's evaluation of the position shown with its best line, and
// reviews a whole game (every move evaluated on the server, a graph, the mistakes marked). Like app.js, it knows no
// game: the server writes every move and the board is drawn by app.js's drawPosition from the game's page data.
"use strict";

let replay = null; // the game stepped through (POST /api/replays form), or null when the page shows its own game
let replayPly = 0; // the position shown
let replayRef = null; // how the server finds the game again for a review: {source, key} or {record}
let review = null; // the review of the replay (GET /api/reviews/{id}), or null
let reviewTimer = null;
let evalController = null; // the analysis request under way (aborted by a newer one)
let evalNumber = 0;
const CHANNEL = Math.random().toString(36).slice(2); // this page's board: its newer analysis supersedes an older one
const CLASS_COLOURS = { inaccuracy: "#e0a800", mistake: "#e06c00", blunder: "#c0141c" };

function replayOn() {
  return replay !== null;
}

function playerNames() {
  if (replay) return replay.players;
  return [0, 1].map((player) => (player === game.seat ? "You" : game.opponent_name));
}

function shownState() {
  if (replay) return replay.positions[replayPly].state;
  return game ? game.state : null;
}

// --- opening a replay ---------------------------------------------------------------------------------------------

function lineRef(data) {
  // A replay as the server rebuilds it for a review: its first position and the moves from there.
  return { state: data.positions[0].state, moves: data.moves.map((move) => move.move) };
}

function openReplay(data, ref, ply) {
  stopReview();
  replay = data;
  replayRef = ref;
  review = null;
  $("stepper").hidden = false;
  $("back-to-game").hidden = !game;
  $("type-move").hidden = true;
  $("review-box").hidden = data.moves.length === 0;
  $("review-graph").toggleAttribute("hidden", true);
  $("review-progress").hidden = true;
  $("review-status").textContent = "";
  $("review-summary").textContent = "";
  $("evaluate").checked = true;
  showPly(ply === undefined ? data.moves.length : ply);
}

function leaveReplay(redraw = true) {
  if (!replay) return;
  stopReview();
  replay = null;
  review = null;
  $("stepper").hidden = true;
  $("back-to-game").hidden = true;
  $("review-box").hidden = true;
  $("type-move").hidden = false;
  if (redraw && game) render(game);
}

async function openFromSource() {
  const source = $("replay-source").value;
  const key = $("replay-game").value;
  if (!source || !key) return;
  await guarded(async () => openReplay(await api("GET", `/api/sources/${source}/games/${encodeURIComponent(key)}`),
    { source, key }));
}

async function guarded(action) {
  showError("");
  try {
    await action();
  } catch (error) {
    showError(error.message);
  }
}

let sourcesByName = {}; // GET /api/sources, by name
let gamesRequest = 0; // the newest loadGames: an older one's answer, come late, is dropped

async function loadSources(selected) {
  const sources = await api("GET", "/api/sources");
  sourcesByName = Object.fromEntries(sources.map((source) => [source.name, source]));
  const select = $("replay-source");
  const chosen = select.value || selected; // a source chosen while the list was loading stays chosen
  select.replaceChildren();
  for (const source of sources) {
    const option = document.createElement("option");
    option.value = source.name;
    option.textContent = `${source.title} (${source.games ?? "cannot be read now"})`;
    select.appendChild(option);
  }
  if (chosen) select.value = chosen;
  await loadGames();
}

async function loadGames() {
  const request = ++gamesRequest;
  const source = $("replay-source").value;
  const select = $("replay-game");
  const rows = source ? await api("GET", `/api/sources/${source}/games`) : [];
  if (request !== gamesRequest) return;
  select.replaceChildren();
  if (!source) return;
  for (const row of rows) {
    const option = document.createElement("option");
    option.value = row.key;
    option.disabled = row.replayable === false;
    option.textContent = `${row.title} · ${row.players.join(" vs ")} · ${row.plies} plies · ${resultText(row)}` +
      (row.error ? " · unreadable" : row.replayable === false ? " · results only" : "");
    select.appendChild(option);
  }
  await loadStandings(source, rows);
}

function resultText(row) {
  return row.result === null ? "unfinished" : row.result === "draw" ? "draw" : `${row.players[row.result]} won`;
}

function cellText(value) {
  // A standings value as text: faults by kind ({"illegal": 2}) as "2 illegal", numbers as they are.
  if (value !== null && typeof value === "object") {
    return Object.entries(value).map(([kind, count]) => `${count} ${kind}`).join(", ") || "–";
  }
  return value === null || value === undefined ? "" : String(value);
}

let sourceGames = []; // the games of the source shown (GET /api/sources/{name}/games)
let gamesOf = null; // the player whose games the games table shows, or null for all

async function loadStandings(source, rows) {
  // A source with standings (a tournament's) shows them as a table, its columns those of the rows; a player's name
  // shows that player's games in the table below, where each game opens its replay in one click.
  const table = $("standings");
  table.replaceChildren();
  sourceGames = rows;
  gamesOf = null;
  table.hidden = !(sourcesByName[source] && sourcesByName[source].standings);
  $("source-games").hidden = table.hidden;
  if (table.hidden) return;
  const standings = await api("GET", `/api/sources/${source}/standings`);
  const columns = standings.length ? Object.keys(standings[0]) : [];
  const head = table.createTHead().insertRow();
  for (const column of columns) head.appendChild(document.createElement("th")).textContent = column;
  const body = table.createTBody();
  for (const row of standings) {
    const line = body.insertRow();
    for (const column of columns) {
      const cell = line.insertCell();
      if (column !== "player") {
        cell.textContent = cellText(row[column]);
        continue;
      }
      const link = cell.appendChild(document.createElement("button"));
      link.type = "button";
      link.className = "link player-games";
      link.textContent = row.player;
      link.title = `show the games of ${row.player}`;
      link.addEventListener("click", () => {
        gamesOf = gamesOf === row.player ? null : row.player;
        drawSourceGames(source);
      });
    }
  }
  drawSourceGames(source);
}

function drawSourceGames(source) {
  // The games of the standings' source (one player's when one was picked): a click on a game opens its replay.
  const table = $("source-games");
  table.replaceChildren();
  const rows = sourceGames.filter((row) => gamesOf === null || row.players.includes(gamesOf));
  const count = `${rows.length} ${plural("game", rows.length)}`;
  const how = rows.some((row) => row.replayable !== false) ? "click one to replay it" :
    "results only: the arena keeps no moves";
  table.createCaption().textContent = gamesOf === null ? `All ${count} (${how})` :
    `${count} of ${gamesOf} (${how}; click ${gamesOf} again for all games)`;
  const head = table.createTHead().insertRow();
  for (const column of ["game", "players", "result", "score", "plies", "end"]) {
    head.appendChild(document.createElement("th")).textContent = column;
  }
  const body = table.createTBody();
  for (const row of rows) {
    const line = body.insertRow();
    line.dataset.key = row.key;
    const open = line.insertCell().appendChild(document.createElement("button"));
    open.type = "button";
    open.className = "link open-game";
    open.textContent = row.title;
    const cells = [row.players.join(" vs "), resultText(row), row.scores ? row.scores.join("–") : "", row.plies,
      row.end_reason || ""];
    for (const text of cells) line.insertCell().textContent = text;
    if (row.replayable === false) {
      open.disabled = true;
      open.title = row.error || "results only: the arena keeps no moves";
      line.classList.add("not-replayable");
      continue;
    }
    open.title = "replay this game";
    line.addEventListener("click", () => guarded(async () => {
      $("replay-game").value = row.key;
      openReplay(await api("GET", `/api/sources/${source}/games/${encodeURIComponent(row.key)}`),
        { source, key: row.key });
    }));
  }
}

// --- stepping through it -------------------------------------------------------------------------------------------

function describePly() {
  const names = replay.players;
  const total = replay.moves.length;
  const page = gameConfig(replay.game);
  let text = `${replay.title}: position ${replayPly} of ${total}. `;
  if (replayPly > 0) {
    const move = replay.moves[replayPly - 1];
    text += `${names[move.player]} played ${move.move}` + (move.note ? ` (${move.note})` : "") +
      (move.captured ? `, capturing ${move.captured}` : "") +
      (move.seconds !== null ? ` in ${move.seconds.toFixed(2)} s` : "") + ". ";
  }
  if (replayPly === total && replay.result) {
    const winner = replay.result.winner === null ? "Draw" : `${names[replay.result.winner]} wins`;
    text += `Game over: ${winner}: ${replay.result.explanation}.`;
  } else if (replayPly < total || !replay.result) {
    const toMove = replay.positions[replayPly].state.to_move;
    text += `${names[toMove]} (${page.players[toMove]}) to move.`;
  }
  if (replay.fault && replayPly === total) {
    const fault = replay.fault;
    text += ` Fault: ${names[fault.player] || `player ${fault.player}`} ${fault.kind}` +
      (fault.detail ? ` (${fault.detail})` : "") + ".";
  }
  return text;
}

function showPly(ply) {
  replayPly = Math.max(0, Math.min(ply, replay.moves.length));
  const position = replay.positions[replayPly];
  drawPosition({
    game: replay.game, seat: 0, clickable: [0, 1], state: position.state, stores: position.stores,
    legal: position.legal_moves, last: replayPly > 0 ? replay.moves[replayPly - 1] : null, names: replay.players,
  });
  $("game-title").textContent = `${gameConfig(replay.game).title} · ${replay.players.join(" vs ")} · replay`;
  $("status").textContent = describePly();
  $("status").className = "";
  $("ply-label").textContent = `${replayPly} / ${replay.moves.length}`;
  $("step-first").disabled = $("step-back").disabled = replayPly === 0;
  $("step-last").disabled = $("step-forward").disabled = replayPly === replay.moves.length;
  drawReplayHistory();
  drawGraph();
  requestEval();
}

function drawReplayHistory() {
  const history = $("history");
  history.replaceChildren();
  replay.moves.forEach((move, index) => {
    const item = document.createElement("li");
    item.textContent = `${move.ply}. ${move.move}` + (move.captured ? ` +${move.captured}` : "");
    item.className = move.player === 0 ? "by-you" : "by-opponent";
    item.classList.toggle("current", index === replayPly - 1);
    item.title = `ply ${move.ply}: ${replay.players[move.player]}` +
      (move.seconds !== null ? `, ${move.seconds.toFixed(2)} s` : "");
    const judged = review && review.moves[index];
    if (judged && judged.class) {
      item.classList.add(judged.class);
      item.dataset.class = judged.class;
      const best = document.createElement("span");
      best.className = "best-move";
      best.textContent = ` ${{ inaccuracy: "?!", mistake: "?", blunder: "??" }[judged.class]} best ${judged.best_move}`;
      item.appendChild(best);
      item.title += `: ${judged.class}, lost ${(100 * judged.loss).toFixed(0)} % of expected score; ` +
        `best ${judged.best_move} (${judged.best_line.join(" ")})`;
    }
    item.addEventListener("click", () => showPly(index + 1));
    history.appendChild(item);
  });
  const current = history.querySelector("li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

async function exploreMove(move) {
  // A move played on the board: a variation from the position shown (the moves after it are dropped).
  await guarded(async () => {
    const line = await api("POST", "/api/positions", { state: replay.positions[replayPly].state, moves: [move] });
    const varied = {
      ...replay,
      title: replay.title.endsWith("(variation)") ? replay.title : `${replay.title} (variation)`,
      positions: [...replay.positions.slice(0, replayPly + 1), line.positions[1]],
      moves: [...replay.moves.slice(0, replayPly), line.moves[0]],
      result: line.result,
      fault: null,
      record: null,
    };
    openReplay(varied, lineRef(varied), replayPly + 1);
  });
}

// --- the evaluation of the position shown ----------------------------------------------------------------------

function clearEval(text) {
  $("eval-fill").style.width = "50%";
  $("eval-text").textContent = text || "";
  $("eval-line").textContent = "";
  delete $("eval-text").dataset.score;
}

function requestEval() {
  if (evalController) evalController.abort(); // a newer position: the older answer is not wanted
  evalController = null;
  const state = shownState();
  if (!$("evaluate").checked || !state || !config) return clearEval();
  const position = replay ? replay.positions[replayPly] : null;
  if (position ? position.legal_moves.length === 0 : game.status === "over") return clearEval("The game is over.");
  const number = ++evalNumber;
  const controller = new AbortController();
  evalController = controller;
  const engine = $("engine").value.trim() || config.analysis.default_engine;
  $("eval-text").textContent = `${engine} is thinking…`;
  delete $("eval-text").dataset.score;
  $("evaluation").classList.add("thinking");
  fetch("/api/analysis", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ state, engine, channel: CHANNEL }),
    signal: controller.signal,
  })
    .then(async (response) => {
      const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
      if (number !== evalNumber) return; // superseded meanwhile
      $("evaluation").classList.remove("thinking");
      if (!response.ok) return clearEval(`No evaluation: ${data.error}`);
      showEval(state, data);
    })
    .catch((error) => {
      if (error.name !== "AbortError" && number === evalNumber) clearEval(`No evaluation: ${error.message}`);
    });
}

function showEval(state, data) {
  const page = gameConfig(state.game);
  const names = playerNames();
  const mover = state.to_move;
  $("eval-fill").style.width = `${(100 * data.score).toFixed(1)}%`;
  let verdict;
  if (data.win_in !== null) {
    verdict = data.win_in > 0 ? `wins in ${data.win_in} plies` : `loses in ${-data.win_in} plies`;
  } else {
    verdict = `expected score ${(100 * data.score).toFixed(0)} %`;
  }
  const value = data.depth === null ? `value ${data.value.toFixed(2)}` : `value ${data.value}, depth ${data.depth}`;
  $("eval-text").textContent = `${names[mover]} (${page.players[mover]}, to move): ${verdict} ` +
    `(${data.engine}: ${value}, ${data.nodes} ${data.depth === null ? "simulations" : "nodes"}, ` +
    `${data.seconds.toFixed(2)} s)`;
  $("eval-text").dataset.score = data.score.toFixed(4);
  let line = `Best line: ${data.line_moves.map((move, i) => `${state.ply + i + 1}. ${move}`).join("  ")}`;
  if (data.move_probabilities) {
    const top = Object.entries(data.move_probabilities).sort((a, b) => b[1] - a[1]).slice(0, 4);
    line += ` · search shares: ${top.map(([move, share]) => `${move} ${(100 * share).toFixed(0)} %`).join(", ")}`;
  }
  $("eval-line").textContent = line;
}

// --- the review --------------------------------------------------------------------------------------------------

function stopReview() {
  if (reviewTimer) clearTimeout(reviewTimer);
  reviewTimer = null;
}

async function startReview() {
  await guarded(async () => {
    stopReview();
    const body = { ...replayRef, engine: config.analysis.review_engine };
    $("review-button").disabled = true;
    $("review-status").textContent = "Starting the review…";
    const started = await api("POST", "/api/reviews", body).finally(() => ($("review-button").disabled = false));
    showReview(started);
  });
}

function plural(word, count) {
  if (count === 1) return word;
  return word.endsWith("y") ? `${word.slice(0, -1)}ies` : `${word}s`;
}

function showReview(data) {
  const reviewed = replay;
  review = data;
  const progress = $("review-progress");
  progress.hidden = data.status !== "running";
  progress.max = Math.max(1, data.total);
  progress.value = data.done;
  const words = { running: "Reviewing", done: "Reviewed", failed: "Review failed", cancelled: "Review cancelled" };
  $("review-status").textContent = `${words[data.status]}: ${data.done} of ${data.total} positions by ` +
    `${data.engine}` + (data.error ? ` (${data.error})` : "");
  $("review-box").dataset.status = data.status;
  const names = data.players;
  $("review-summary").textContent = data.counts
    .map((counts, player) => `${names[player]}: ` +
      Object.entries(counts).map(([name, count]) => `${count} ${plural(name, count)}`).join(", "))
    .join(" · ") + ` (expected score lost ≥ ${Object.entries(data.thresholds)
      .map(([name, t]) => `${Math.round(100 * t)} % ${name}`).join(", ")})`;
  drawReplayHistory();
  drawGraph();
  if (data.status === "running") {
    reviewTimer = setTimeout(async () => {
      if (replay !== reviewed) return;
      try {
        showReview(await api("GET", `/api/reviews/${data.id}`));
      } catch (error) {
        $("review-status").textContent = `Review lost: ${error.message}`;
      }
    }, 400);
  }
}

function drawGraph() {
  const svg = $("review-graph");
  svg.toggleAttribute("hidden", !review || !replay); // an SVG element has no `hidden` property
  if (!review || !replay) return;
  const width = 600;
  const height = 160;
  const count = Math.max(1, review.graph.length - 1);
  const x = (i) => (i / count) * width;
  const y = (score) => 6 + (1 - score) * (height - 12); // a margin keeps a won game's line in sight
  const points = review.graph.map((score, i) => (score === null ? null : `${x(i).toFixed(1)},${y(score).toFixed(1)}`));
  const parts = [
    `<rect x="0" y="0" width="${width}" height="${height / 2}" class="graph-top"></rect>`,
    `<line x1="0" y1="${height / 2}" x2="${width}" y2="${height / 2}" class="graph-mid"></line>`,
    `<polyline points="${points.filter((p) => p !== null).join(" ")}" class="graph-line"></polyline>`,
    `<line x1="${x(replayPly)}" y1="0" x2="${x(replayPly)}" y2="${height}" class="graph-now"></line>`,
  ];
  review.moves.forEach((move, index) => {
    const score = review.graph[index + 1];
    if (move.class && score !== null) {
      parts.push(`<circle cx="${x(index + 1)}" cy="${y(score)}" r="4" fill="${CLASS_COLOURS[move.class]}" ` +
        `data-ply="${index + 1}" class="graph-mark ${move.class}"><title>${move.ply}. ${move.move}: ${move.class}, ` +
        `best ${move.best_move}</title></circle>`);
    }
  });
  svg.innerHTML = parts.join("");
  svg.setAttribute("aria-label", `expected score of ${review.players[0]} over the game (top: ${review.players[0]})`);
}

// --- setting it up -------------------------------------------------------------------------------------------------

function setUpAnalysis(cfg) {
  for (const spec of cfg.analysis.engines) {
    const option = document.createElement("option");
    option.value = spec;
    $("engines").appendChild(option);
  }
  $("engine").value = cfg.analysis.default_engine;
  $("engine").addEventListener("change", requestEval);
  $("evaluate").addEventListener("change", requestEval);
  $("replay-source").addEventListener("change", () => guarded(loadGames));
  $("replay-source").addEventListener("focus", () => guarded(() => loadSources($("replay-source").value)));
  $("open-replay").addEventListener("click", openFromSource);
  $("analyse-current").addEventListener("click", () => guarded(async () => {
    if (!game) throw new Error("no game of yours to analyse: press New game");
    openReplay(await api("GET", `/api/sources/page/games/${game.id}`), { source: "page", key: game.id });
  }));
  $("back-to-game").addEventListener("click", () => leaveReplay());
  $("record-file").addEventListener("change", () => guarded(async () => {
    const file = $("record-file").files[0];
    if (!file) return;
    const record = await file.text();
    openReplay(await api("POST", "/api/replays", { record }), { record }, 0);
  }));
  $("open-position").addEventListener("click", () => guarded(async () => {
    let state;
    try {
      state = JSON.parse($("position-text").value);
    } catch (error) {
      throw new Error(`the position is not JSON: ${error.message}`);
    }
    const line = await api("POST", "/api/positions", { state });
    openReplay(line, lineRef(line), 0);
  }));
  $("current-position").addEventListener("click", () => {
    const state = shownState();
    if (state) $("position-text").value = JSON.stringify(state);
  });
  $("step-first").addEventListener("click", () => showPly(0));
  $("step-back").addEventListener("click", () => showPly(replayPly - 1));
  $("step-forward").addEventListener("click", () => showPly(replayPly + 1));
  $("step-last").addEventListener("click", () => showPly(replay.moves.length));
  document.addEventListener("keydown", (event) => {
    if (!replay || ["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName)) return;
    if (event.key === "ArrowLeft") showPly(replayPly - 1);
    if (event.key === "ArrowRight") showPly(replayPly + 1);
  });
  $("review-button").addEventListener("click", startReview);
  $("review-graph").addEventListener("click", (event) => {
    const mark = event.target.closest("circle[data-ply]");
    if (mark) showPly(Number(mark.dataset.ply));
  });
  guarded(() => loadSources());
}
