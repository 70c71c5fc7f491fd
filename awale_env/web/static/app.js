// The page of `awale serve`: draws the game the server returns and posts the moves clicked. The server checks
// every move; this script only offers the moves it lists as legal. Each game of the toolkit has a board layout
// below (BOARDS); everything else is the same for every game.
"use strict";

const MAX_DOTS = 20; // seeds drawn per pit; the counts are written underneath anyway
const GAME_KEY = "awale.gameId";

const $ = (id) => document.getElementById(id);
let game = null;
let busy = false;
let config = null;
let boardKey = null; // the game and seat the board was built for

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
  const known = gameConfig(g.game);
  return known ? known.players[player] : `player ${player}`;
}

function range(from, to) {
  // from..to inclusive, counting down when to < from
  const step = to >= from ? 1 : -1;
  return Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => from + i * step);
}

// --- the boards -------------------------------------------------------------------------------------------------
// A board is rows of cells; a cell is {pit, owner, label, move}: `pit` indexes the seed counts of BOARDS[..].counts,
// `move` is how its owner's move from it is written (the API's legal_moves), `label` the number shown.

const BOARDS = {
  awale16: {
    columns: 8,
    rows: () => [range(16, 9), range(1, 8)].map((row) => row.map((hole) => ({ pit: hole - 1, owner: (hole - 1) % 2, label: hole }))),
    counts: (state, pit) => [state.red[pit], state.blue[pit]],
    movedFrom: (move) => parseInt(move.move, 10) - 1,
    hint: "Sowing runs 1 → 16 (anticlockwise on screen). Red seeds go into every hole, blue seeds only into the " +
      "opponent's holes. Click R or B under one of your holes to take all its seeds of that colour.",
    example: "14B",
  },
  oware: {
    columns: 6,
    // Player 0's pits 0..5 left to right, player 1's 6..11 above them from right to left (the person's row below),
    // numbered by their moves 0..5, as each player sees their own row.
    rows: (seat) => (seat === 0 ? [range(11, 6), range(0, 5)] : [range(5, 0), range(6, 11)])
      .map((row) => row.map((pit) => ({ pit, owner: pit < 6 ? 0 : 1, label: pit % 6, move: String(pit % 6) }))),
    counts: (state, pit) => [state.board[pit]],
    movedFrom: (move) => 6 * move.player + parseInt(move.move, 10),
    hint: "Sowing runs anticlockwise and skips the pit it started from. Each player's pits are numbered 0-5 from " +
      "their left, as moves are written. Click one of your pits to sow it; ending in the opponent's row on 2 or 3 " +
      "seeds captures them and the pits before it holding 2 or 3.",
    example: "3",
  },
  hawalis: {
    columns: 7,
    // Rule 3's grid: rows 0..3 from South's outer row to North's, columns west to east as South sees them; the
    // person's two rows at the bottom (the board turned round for North). Pits are numbered 0..13 per player.
    rows: (seat) => {
      const local = (row, col) => [[0, col], [0, 13 - col], [1, col + 7], [1, 6 - col]][row];
      const order = seat === 0 ? [range(3, 0), range(0, 6)] : [range(0, 3), range(6, 0)];
      return order[0].map((row) => order[1].map((col) => {
        const [owner, k] = local(row, col);
        return { pit: 14 * owner + k, owner, label: k, move: String(k) };
      }));
    },
    counts: (state, pit) => [pit < 14 ? state.south[pit] : state.north[pit - 14]],
    movedFrom: (move) => 14 * move.player + parseInt(move.move, 10),
    endedIn: (state, move) => (state.last_pit === null ? null : 14 * move.player + state.last_pit),
    hint: "Each player sows round their own two rows, anticlockwise; a last seed landing in an occupied pit picks " +
      "it up and sows on. Ending in your inner row captures the facing pit of the opponent and the one behind it. " +
      "Click one of your pits (numbered 0-13) to sow it.",
    example: "12",
  },
};

function makeCell(gameId, cell, seat) {
  const mine = cell.owner === seat;
  const element = document.createElement(gameId !== "awale16" && mine ? "button" : "div");
  element.className = "hole";
  element.id = `pit-${cell.pit}`;
  element.dataset.pit = cell.pit;
  element.dataset.hole = cell.label;
  element.classList.toggle("mine", mine);
  element.classList.toggle("theirs", !mine);
  element.innerHTML = `
    <div class="hole-number">${cell.label}</div>
    <div class="pit"><div class="dots"></div></div>
    <div class="counts"></div>`;
  if (gameId === "awale16") {
    element.querySelector(".counts").innerHTML =
      '<span class="count-red" title="red seeds"></span><span class="count-blue" title="blue seeds"></span>';
    const buttons = document.createElement("div");
    buttons.className = "buttons";
    if (mine) {
      buttons.innerHTML = `
        <button type="button" class="move move-red" data-move="${cell.label}R" aria-label="play ${cell.label}R">R</button>
        <button type="button" class="move move-blue" data-move="${cell.label}B" aria-label="play ${cell.label}B">B</button>`;
    }
    element.appendChild(buttons);
  } else {
    element.querySelector(".counts").innerHTML = '<span class="count"></span>';
    if (mine) {
      element.type = "button";
      element.classList.add("move", "pit-move");
      element.dataset.move = cell.move;
      element.setAttribute("aria-label", `play ${cell.move}`);
    }
  }
  return element;
}

function buildBoard(g) {
  const layout = BOARDS[g.game];
  const rows = $("rows");
  rows.replaceChildren();
  rows.style.setProperty("--columns", layout.columns);
  $("board").dataset.game = g.game;
  layout.rows(g.seat).forEach((cells, index, all) => {
    const row = document.createElement("div");
    row.className = "row";
    // Hawalis: a gap between the opponent's two rows and the person's.
    row.classList.toggle("side-start", all.length === 4 && index === 2);
    for (const cell of cells) row.appendChild(makeCell(g.game, cell, g.seat));
    rows.appendChild(row);
  });
  $("board-hint").textContent = layout.hint;
  $("move-text").placeholder = layout.example;
  boardKey = `${g.game}:${g.seat}`;
}

function drawDots(container, counts) {
  container.replaceChildren();
  const colours = counts.length === 2 ? ["red", "blue"] : ["seed"];
  const dots = colours.flatMap((colour, i) => Array(counts[i]).fill(colour)).slice(0, MAX_DOTS);
  for (const colour of dots) {
    const dot = document.createElement("span");
    dot.className = `dot dot-${colour}`;
    container.appendChild(dot);
  }
}

function storesOf(g) {
  return g.state.stores || g.state.captured;
}

// --- the page ---------------------------------------------------------------------------------------------------

function describeResult(g) {
  const stores = storesOf(g);
  const score = `${stores[g.seat]}–${stores[1 - g.seat]}`;
  const verdict = { win: "You win", loss: `${g.opponent_name} wins`, draw: "Draw" }[g.result.outcome];
  return `Game over: ${verdict} ${score}. ${g.result.explanation[0].toUpperCase()}${g.result.explanation.slice(1)}.`;
}

function describeTurn(g) {
  const last = g.last_move;
  let lastText = "";
  if (last) {
    lastText = `${last.by === "you" ? "You" : g.opponent_name} played ${last.move}`;
    if (g.game === "hawalis" && g.state.laps !== null) {
      lastText += ` (ended in pit ${g.state.last_pit} after ${g.state.laps} lap${g.state.laps === 1 ? "" : "s"})`;
    }
    lastText += (last.captured ? `, capturing ${last.captured}` : "") +
      (last.seconds !== null ? ` (${last.seconds.toFixed(2)} s)` : "") + ". ";
  }
  return `${lastText}Your move (${seatName(g, g.seat)}): ply ${g.state.ply + 1}` +
    (g.state.max_plies ? ` of ${g.state.max_plies}` : "") + ".";
}

function render(g) {
  game = g;
  localStorage.setItem(GAME_KEY, g.id);
  if (boardKey !== `${g.game}:${g.seat}`) buildBoard(g);
  const layout = BOARDS[g.game];
  const legal = new Set(busy ? [] : g.legal_moves);
  const last = g.last_move;
  const movedFrom = last ? layout.movedFrom(last) : null;
  const endedIn = last && layout.endedIn ? layout.endedIn(g.state, last) : null;
  for (const cell of document.querySelectorAll("#rows .hole")) {
    const pit = Number(cell.dataset.pit);
    const counts = layout.counts(g.state, pit);
    const mine = cell.classList.contains("mine");
    cell.classList.toggle("last", pit === movedFrom);
    cell.classList.toggle("ended", pit === endedIn);
    const whose = mine ? "yours" : `${g.opponent_name}'s`;
    if (counts.length === 2) {
      cell.title = `hole ${cell.dataset.hole} (${whose}): ${counts[0]} red, ${counts[1]} blue`;
      cell.querySelector(".count-red").textContent = counts[0];
      cell.querySelector(".count-blue").textContent = counts[1];
    } else {
      cell.title = `pit ${cell.dataset.hole} (${whose}): ${counts[0]} seed${counts[0] === 1 ? "" : "s"}`;
      cell.querySelector(".count").textContent = counts[0];
    }
    drawDots(cell.querySelector(".dots"), counts);
    for (const button of cell.matches("button.move") ? [cell] : cell.querySelectorAll("button.move")) {
      button.disabled = !legal.has(button.dataset.move);
      button.classList.toggle("last-move", !!last && button.dataset.move === last.move && pit === movedFrom);
    }
  }
  const stores = storesOf(g);
  for (const [side, player] of Object.entries({ left: 1 - g.seat, right: g.seat })) {
    const store = $(`store-${side}`);
    store.querySelector(".store-name").textContent =
      `${player === g.seat ? "You" : g.opponent_name} (${seatName(g, player)})`;
    store.querySelector(".store-count").textContent = stores[player];
    store.querySelector(".store-note").textContent = g.game === "hawalis" ? "captured" : "store";
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
  const title = gameConfig(g.game) ? gameConfig(g.game).title : g.game;
  $("game-title").textContent = `${title} · vs ${g.opponent_name}`;
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
  const id = $("game").value || "awale16";
  const previous = game;
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
    if (button && !button.disabled) play(button.dataset.move);
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
    fillGameForm(config.games[0].id);
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

start();
