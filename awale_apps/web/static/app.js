// The page of `awale serve`: draws the game the server returns and posts the moves clicked. The server checks
// every move; this script only offers the moves it lists as legal. It knows no game: each game's board layout,
// seat names and wording come with the server's configuration (GET /api/config), from the game's page data.
"use strict";

const MAX_DOTS = 20; // seeds drawn per pit; the counts are written underneath anyway
const GAME_KEY = "awale.gameId";

const $ = (id) => document.getElementById(id);
let game = null;
let busy = false;
let config = null;
let boardKey = null; // the game, seat and clickable sides the board was built for
let boardCells = []; // each cell of the board drawn: {element, cell}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  if (response.status === 204) return null;
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) {
    const error = new Error(data.error || `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function showError(message) {
  $("error").textContent = message || "";
  $("error").hidden = !message;
}

function gameConfig(id) {
  return (config && config.games.find((g) => g.id === id)) || null;
}

function seatName(g, player) {
  return gameConfig(g.game).players[player];
}

// --- the board ---------------------------------------------------------------------------------------------------
// Each game's page data (in GET /api/config, from the game's awale_env/games/<name>/page.py) lays out its board:
// `views[seat]` is the rows of cells the person in that seat sees. A cell is {label, owner, seeds, move | buttons}:
// `seeds` lists [state field, index] for each seed colour of the page's `colours`; `move` is the move made by clicking
// the pit itself, `buttons` the moves offered as buttons under it ({move, text, colour}).

function cellMoves(cell) {
  return cell.buttons ? cell.buttons.map((button) => button.move) : [cell.move];
}

function madeFrom(cell, player, move) {
  // Whether `player`'s move `move` is played from `cell`.
  return cell.owner === player && cellMoves(cell).includes(move);
}

function makeCell(page, cell, seat, clickable) {
  // `clickable`: the players whose moves the cell offers (the seat's in a game, both on the analysis board).
  const mine = cell.owner === seat;
  const offered = clickable.includes(cell.owner);
  const element = document.createElement(!cell.buttons && offered ? "button" : "div");
  element.className = "hole";
  element.dataset.hole = cell.label;
  element.classList.toggle("mine", mine);
  element.classList.toggle("theirs", !mine);
  element.innerHTML = `
    <div class="hole-number">${cell.label}</div>
    <div class="pit"><div class="dots"></div></div>
    <div class="counts"></div>`;
  element.querySelector(".counts").innerHTML = page.colours
    .map((colour) => `<span class="count count-${colour.css}" title="${colour.name}"></span>`)
    .join("");
  if (cell.buttons) {
    const buttons = document.createElement("div");
    buttons.className = "buttons";
    if (offered) {
      buttons.innerHTML = cell.buttons
        .map((b) => `<button type="button" class="move move-${b.colour}" data-move="${b.move}" ` +
          `aria-label="play ${b.move}">${b.text}</button>`)
        .join("");
    }
    element.appendChild(buttons);
  } else if (offered) {
    element.type = "button";
    element.classList.add("move", "pit-move");
    element.dataset.move = cell.move;
    element.setAttribute("aria-label", `play ${cell.move}`);
  }
  return element;
}

function keyOf(v) {
  return `${v.game}:${v.seat}:${v.clickable || v.seat}`;
}

function buildBoard(g) {
  const page = gameConfig(g.game);
  const view = page.views[g.seat];
  const rows = $("rows");
  rows.replaceChildren();
  rows.style.setProperty("--columns", Math.max(...view.map((cells) => cells.length)));
  $("board").dataset.game = g.game;
  boardCells = [];
  view.forEach((cells, index) => {
    const row = document.createElement("div");
    row.className = "row";
    row.classList.toggle("side-start", index === page.gap_before_row);
    for (const cell of cells) {
      const element = makeCell(page, cell, g.seat, g.clickable || [g.seat]);
      boardCells.push({ element, cell });
      row.appendChild(element);
    }
    rows.appendChild(row);
  });
  $("board-hint").textContent = page.hint;
  $("move-text").placeholder = page.example;
  boardKey = keyOf(g);
}

function drawDots(container, counts, colours) {
  container.replaceChildren();
  const dots = colours.flatMap((colour, i) => Array(counts[i]).fill(colour.css)).slice(0, MAX_DOTS);
  for (const colour of dots) {
    const dot = document.createElement("span");
    dot.className = `dot dot-${colour}`;
    container.appendChild(dot);
  }
}

// --- the page ---------------------------------------------------------------------------------------------------

function describeResult(g) {
  const score = `${g.stores[g.seat]}–${g.stores[1 - g.seat]}`;
  const verdict = { win: "You win", loss: `${g.opponent_name} wins`, draw: "Draw" }[g.result.outcome];
  return `Game over: ${verdict} ${score}. ${g.result.explanation[0].toUpperCase()}${g.result.explanation.slice(1)}.`;
}

function describeTurn(g) {
  const last = g.last_move;
  let lastText = "";
  if (last) {
    lastText = `${last.by === "you" ? "You" : g.opponent_name} played ${last.move}` +
      (last.note ? ` (${last.note})` : "") +
      (last.captured ? `, capturing ${last.captured}` : "") +
      (last.seconds !== null ? ` (${last.seconds.toFixed(2)} s)` : "") + ". ";
  }
  return `${lastText}Your move (${seatName(g, g.seat)}): ply ${g.state.ply + 1}` +
    (g.state.max_plies ? ` of ${g.state.max_plies}` : "") + ".";
}

// Draw a position: `v` = {game, seat (whose view), clickable (the players whose pits offer moves; default the seat),
// state, stores, legal (moves that may be clicked), last (the last move or null), names (player 0's first)}.
function drawPosition(v) {
  if (boardKey !== keyOf(v)) buildBoard(v);
  const page = gameConfig(v.game);
  const legal = new Set(busy ? [] : v.legal);
  const last = v.last;
  for (const { element, cell } of boardCells) {
    const counts = cell.seeds.map(([field, index]) => v.state[field][index]);
    const movedFrom = !!last && madeFrom(cell, last.player, last.move);
    element.classList.toggle("last", movedFrom);
    element.classList.toggle("ended", !!last && last.ended !== null && madeFrom(cell, last.player, last.ended));
    const seeds = counts.map((count, i) => `${count} ${page.colours[i].name}`).join(", ");
    element.title = `${page.pit_name} ${cell.label} (${v.names[cell.owner]}): ${seeds}`;
    element.querySelectorAll(".count").forEach((span, i) => (span.textContent = counts[i]));
    drawDots(element.querySelector(".dots"), counts, page.colours);
    for (const button of element.matches("button.move") ? [element] : element.querySelectorAll("button.move")) {
      button.disabled = !legal.has(button.dataset.move);
      button.classList.toggle("last-move", movedFrom && button.dataset.move === last.move);
    }
  }
  for (const [side, player] of Object.entries({ left: 1 - v.seat, right: v.seat })) {
    const store = $(`store-${side}`);
    store.querySelector(".store-name").textContent = `${v.names[player]} (${page.players[player]})`;
    store.querySelector(".store-count").textContent = v.stores[player];
    store.querySelector(".store-note").textContent = page.store_label;
    store.dataset.player = player;
  }
}

function render(g) {
  game = g;
  localStorage.setItem(GAME_KEY, g.id);
  if (replayOn()) return; // the analysis board shows a replay (analysis.js); the game is drawn when it is left
  const page = gameConfig(g.game);
  const names = [0, 1].map((player) => (player === g.seat ? "You" : g.opponent_name));
  drawPosition({
    game: g.game, seat: g.seat, state: g.state, stores: g.stores, legal: g.legal_moves, last: g.last_move, names,
  });
  const history = $("history");
  history.replaceChildren();
  for (const move of g.moves) {
    const item = document.createElement("li");
    item.textContent = `${move.ply}. ${move.move}` + (move.captured ? ` +${move.captured}` : "");
    item.className = move.by === "you" ? "by-you" : "by-opponent";
    item.title = `ply ${move.ply}: ${move.by === "you" ? "you" : g.opponent_name}` +
      (move.seconds !== null ? `, ${move.seconds.toFixed(2)} s` : "");
    history.appendChild(item);
  }
  history.scrollTop = history.scrollHeight;
  $("status").textContent = g.status === "over" ? describeResult(g) : describeTurn(g);
  $("status").className = g.status === "over" ? `result result-${g.result.outcome}` : "";
  $("undo").disabled = busy || !g.can_undo;
  $("game-title").textContent = `${page.title} · vs ${g.opponent_name}`;
  requestEval(); // when the analysis board's "evaluate" is ticked
}

function setBusy(value, message) {
  busy = value;
  // Nothing can be clicked while a request runs; afterwards render() enables the moves and undo the game allows.
  for (const element of document.querySelectorAll("button, input, select")) {
    element.disabled = value || element.classList.contains("move") || element.id === "undo";
  }
  if (message) $("status").textContent = message;
  document.body.classList.toggle("busy", value);
}

async function run(message, action) {
  if (busy) return;
  showError("");
  setBusy(true, message);
  try {
    const result = await action();
    setBusy(false);
    if (result) render(result);
  } catch (error) {
    setBusy(false);
    if (error.status === 404 && game) {
      // Evicted (the server keeps a bounded number of games) or the server restarted: nothing left to play here.
      game = null;
      localStorage.removeItem(GAME_KEY);
      showError("This game is no longer on the server (it was evicted or the server restarted): press New game.");
      return;
    }
    showError(error.message);
    if (game) render(game);
  }
}

function play(move) {
  const name = game ? game.opponent_name : "the opponent";
  const text = move.trim();
  return run(`You played ${text}; ${name} is thinking…`, () => api("POST", `/api/games/${game.id}/moves`, { move: text }));
}

// --- the new-game form: the game picker sets the seats, rules and opponents it offers ----------------------------

function fillGameForm(id) {
  const known = gameConfig(id);
  if (!known) return;
  $("game").value = id;
  known.players.forEach((name, player) => {
    $(`seat-${player}`).textContent = `${name} (player ${player})`;
  });
  const rules = $("rules");
  rules.replaceChildren();
  known.rule_choices.forEach((choice, index) => {
    const option = document.createElement("option");
    option.value = String(index);
    option.textContent = choice.label;
    rules.appendChild(option);
  });
  $("rules-label").hidden = known.rule_choices.length === 0;
}

function chosenRules() {
  const known = gameConfig($("game").value);
  const choice = known && known.rule_choices[Number($("rules").value)];
  return choice ? choice.rules : {};
}

function newGame() {
  const opponent = $("opponent").value.trim();
  const seatValue = $("seat").value;
  const seat = seatValue === "random" ? "random" : Number(seatValue);
  const id = $("game").value || config.default_game;
  const previous = game;
  leaveReplay(false);
  return run(`Starting a game against ${opponent}…`, async () => {
    const created = await api("POST", "/api/games", { game: id, rules: chosenRules(), opponent, seat });
    if (previous) api("DELETE", `/api/games/${previous.id}`).catch(() => {});
    return created;
  });
}

function restoreForm(g) {
  fillGameForm(g.game);
  $("opponent").value = g.opponent;
  $("seat").value = String(g.seat);
  const known = gameConfig(g.game);
  const index = known ? known.rule_choices.findIndex((c) => JSON.stringify(c.rules) === JSON.stringify(g.rules)) : -1;
  if (index >= 0) $("rules").value = String(index);
}

async function start() {
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    newGame();
  });
  $("game").addEventListener("change", () => fillGameForm($("game").value));
  $("board").addEventListener("click", (event) => {
    const button = event.target.closest("button.move");
    if (button && !button.disabled) (replayOn() ? exploreMove : play)(button.dataset.move);
  });
  $("undo").addEventListener("click", () => run("Taking back your last move…", () => api("POST", `/api/games/${game.id}/undo`)));
  $("type-move").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("move-text").value.trim();
    $("move-text").value = "";
    if (game && text) play(text);
  });
  $("copy-record").addEventListener("click", async () => {
    if (!game) return;
    try {
      await navigator.clipboard.writeText(game.record);
      $("copy-record").textContent = "Copied";
      setTimeout(() => ($("copy-record").textContent = "Copy game record"), 1500);
    } catch {
      window.prompt("Game record", game.record);
    }
  });
  try {
    config = await api("GET", "/api/config");
    for (const spec of config.presets) {
      const option = document.createElement("option");
      option.value = spec;
      $("presets").appendChild(option);
    }
    for (const known of config.games) {
      const option = document.createElement("option");
      option.value = known.id;
      option.textContent = known.title;
      $("game").appendChild(option);
    }
    fillGameForm(config.default_game);
    setUpAnalysis(config);
    const agents = Object.entries(config.agents)
      .map(([name, agent]) => {
        const params = Object.keys(agent.params).filter((key) => key !== "path"); // path= is for --preset only
        return params.length ? `${name}[:${params.join(",")}]` : name;
      })
      .join(" · ");
    $("spec-help").textContent = `Any agent spec name[:key=value,...]: ${agents}. A trained agent (ppo, ` +
      `alphazero) plays only the game it was trained on. Each move is capped at ${config.limits.max_think_seconds} s ` +
      "of thinking.";
  } catch (error) {
    showError(`cannot read the server's configuration: ${error.message}`);
  }
  const saved = localStorage.getItem(GAME_KEY);
  if (saved) {
    try {
      const restored = await api("GET", `/api/games/${saved}`);
      restoreForm(restored);
      render(restored);
      return;
    } catch {
      localStorage.removeItem(GAME_KEY); // evicted or the server restarted: start afresh
    }
  }
  await newGame();
}

// After every script of the page has run (analysis.js adds the analysis board).
window.addEventListener("DOMContentLoaded", start);
