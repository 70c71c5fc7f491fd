// The page of `awale serve`: draws the game the server returns and posts the moves clicked. The server checks
// every move; this script only offers the moves it lists as legal.
"use strict";

const TOP_ROW = [16, 15, 14, 13, 12, 11, 10, 9];
const BOTTOM_ROW = [1, 2, 3, 4, 5, 6, 7, 8];
const MAX_DOTS = 20; // seeds drawn per hole; the counts are written underneath anyway
const GAME_KEY = "awale.gameId";

const $ = (id) => document.getElementById(id);
let game = null;
let busy = false;

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

function seatName(player) {
  return player === 0 ? "odd holes" : "even holes";
}

function makeHole(hole) {
  const cell = document.createElement("div");
  cell.className = "hole";
  cell.id = `hole-${hole}`;
  cell.dataset.hole = hole;
  cell.innerHTML = `
    <div class="hole-number">${hole}</div>
    <div class="pit"><div class="dots"></div></div>
    <div class="counts"><span class="count-red" title="red seeds"></span><span class="count-blue" title="blue seeds"></span></div>
    <div class="buttons">
      <button type="button" class="move move-red" data-move="${hole}R" aria-label="play ${hole}R">R</button>
      <button type="button" class="move move-blue" data-move="${hole}B" aria-label="play ${hole}B">B</button>
    </div>`;
  return cell;
}

function buildBoard() {
  for (const hole of TOP_ROW) $("row-top").appendChild(makeHole(hole));
  for (const hole of BOTTOM_ROW) $("row-bottom").appendChild(makeHole(hole));
  $("board").addEventListener("click", (event) => {
    const button = event.target.closest("button.move");
    if (button && !button.disabled) play(button.dataset.move);
  });
}

function drawDots(container, red, blue) {
  container.replaceChildren();
  const colours = [...Array(red).fill("red"), ...Array(blue).fill("blue")].slice(0, MAX_DOTS);
  for (const colour of colours) {
    const dot = document.createElement("span");
    dot.className = `dot dot-${colour}`;
    container.appendChild(dot);
  }
}

function describeResult(g) {
  const [mine, theirs] = [g.state.stores[g.seat], g.state.stores[1 - g.seat]];
  const score = `${mine}–${theirs}`;
  const verdict = { win: "You win", loss: `${g.opponent_name} wins`, draw: "Draw" }[g.result.outcome];
  return `Game over: ${verdict} ${score}. ${g.result.explanation[0].toUpperCase()}${g.result.explanation.slice(1)}.`;
}

function describeTurn(g) {
  const last = g.last_move;
  const lastText = last
    ? `${last.by === "you" ? "You" : g.opponent_name} played ${last.move}` +
      (last.captured ? `, capturing ${last.captured}` : "") +
      (last.seconds !== null ? ` (${last.seconds.toFixed(2)} s)` : "") + ". "
    : "";
  return `${lastText}Your move (${seatName(g.seat)}): ply ${g.state.ply + 1}` +
    (g.state.max_plies ? ` of ${g.state.max_plies}` : "") + ".";
}

function render(g) {
  game = g;
  localStorage.setItem(GAME_KEY, g.id);
  const legal = new Set(busy ? [] : g.legal_moves);
  const lastMove = g.last_move ? g.last_move.move : null;
  const lastHole = lastMove ? parseInt(lastMove, 10) : null;
  for (let hole = 1; hole <= 16; hole++) {
    const cell = $(`hole-${hole}`);
    const owner = (hole - 1) % 2; // player 0 owns the odd holes
    const red = g.state.red[hole - 1];
    const blue = g.state.blue[hole - 1];
    cell.classList.toggle("mine", owner === g.seat);
    cell.classList.toggle("theirs", owner !== g.seat);
    cell.classList.toggle("last", hole === lastHole);
    cell.title = `hole ${hole} (${owner === g.seat ? "yours" : g.opponent_name + "'s"}): ${red} red, ${blue} blue`;
    cell.querySelector(".count-red").textContent = red;
    cell.querySelector(".count-blue").textContent = blue;
    drawDots(cell.querySelector(".dots"), red, blue);
    for (const button of cell.querySelectorAll("button.move")) {
      button.disabled = !legal.has(button.dataset.move);
      button.hidden = owner !== g.seat;
      button.classList.toggle("last-move", button.dataset.move === lastMove);
    }
  }
  const stores = { left: 1 - g.seat, right: g.seat };
  for (const [side, player] of Object.entries(stores)) {
    const store = $(`store-${side}`);
    store.querySelector(".store-name").textContent =
      `${player === g.seat ? "You" : g.opponent_name} (${seatName(player)})`;
    store.querySelector(".store-count").textContent = g.state.stores[player];
    store.dataset.player = player;
  }
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
  $("game-title").textContent = `vs ${g.opponent_name}`;
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

function newGame() {
  const opponent = $("opponent").value.trim();
  const seatValue = $("seat").value;
  const seat = seatValue === "random" ? "random" : Number(seatValue);
  const previous = game;
  return run(`Starting a game against ${opponent}…`, async () => {
    const created = await api("POST", "/api/games", { game: "awale16", opponent, seat });
    if (previous) api("DELETE", `/api/games/${previous.id}`).catch(() => {});
    return created;
  });
}

async function start() {
  buildBoard();
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    newGame();
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
      window.prompt("Game record (awale_env.GameRecord text)", game.record);
    }
  });
  try {
    const config = await api("GET", "/api/config");
    for (const spec of config.presets) {
      const option = document.createElement("option");
      option.value = spec;
      $("presets").appendChild(option);
    }
    const agents = Object.entries(config.agents)
      .map(([name, agent]) => {
        const params = Object.keys(agent.params).filter((key) => key !== "path"); // path= is for --preset only
        return params.length ? `${name}[:${params.join(",")}]` : name;
      })
      .join(" · ");
    $("spec-help").textContent = `Any agent spec name[:key=value,...]: ${agents}. ` +
      `Each move is capped at ${config.limits.max_think_seconds} s of thinking.`;
  } catch (error) {
    showError(`cannot read the server's configuration: ${error.message}`);
  }
  const saved = localStorage.getItem(GAME_KEY);
  if (saved) {
    try {
      const restored = await api("GET", `/api/games/${saved}`);
      $("opponent").value = restored.opponent;
      $("seat").value = String(restored.seat);
      render(restored);
      return;
    } catch {
      localStorage.removeItem(GAME_KEY); // evicted or the server restarted: start afresh
    }
  }
  await newGame();
}

start();
