// The seat page of a biblios-kit game server: a client of the open WebSocket API (docs/network.md).
//
// It draws each view the server pushes (a whole view, then updates: what changed), offers only
// the view's legal actions (every action carries the version it answers), and reconnects with
// backoff. Every word comes from the
// server in the seat's language (/play/{table}/texts, the same gettext catalogs as the
// terminal). Names and sentences are set as text, never as markup; nothing is stored.
// The same page shows a spectator (/watch/{table}: the public view, no hand, no choices).

const body = document.body;
const table = body.dataset.table;
const base = body.dataset.base || `/play/${encodeURIComponent(table)}`;
const LANGUAGES = [["en", "English"], ["fr", "Français"], ["es", "Español"]];

const state = {
  lang: body.dataset.lang,
  view: null, // the latest view (events accumulated in state.events)
  events: 0, // how many events of the seat's log we hold
  texts: null, // words that do not change (ui, cards, dice, terms)
  live: null, // the latest texts reply
  lives: new Map(), // texts replies by version (focus, labels, warnings, end)
  log: [], // {n, text, heading}
  socket: null,
  attempt: 0,
  waiting: false, // an action was sent and not answered yet
  fetching: null,
  lost: false,
  replayStep: 0, // the move the replay shows
  replayMoves: 0,
  replayLang: null,
  info: null, // the latest table_info: who is connected, the table's settings
  stopped: null, // why the page stopped reconnecting (a ui key: closed, revoked, no_spectators)
  mine: false, // whether the seat had a decision to make at the last drawing (for the turn signals)
  rematch: null, // the latest rematch message: each seat's vote at the end
  askedRematch: false, // this seat opted in to a rematch
  clock: null, // the latest clock message: whose turn, the time left, the stand-ins (net/clocks.py)
  clockAt: 0, // when it came (performance.now()), for the countdown
  tableEvents: [], // {event, at}: the table's events (time out, stand-in, back, vote), at their place in the log
};

const STOPPING = { table_closed: "closed", token_revoked: "revoked", no_spectators: "no_spectators" };

// ---------------------------------------------------------------- small DOM helpers

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key === "on") for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function section(id, headingKey) {
  const heading = el("h2", { id: `${id}-h` });
  heading.dataset.ui = headingKey;
  return el("section", { id, "aria-labelledby": `${id}-h` }, heading);
}

function ui(key, values = {}) {
  if (key.startsWith("term:")) return (state.texts && state.texts.terms[key.slice(5)]) || "";
  let text = (state.texts && state.texts.ui[key]) || "";
  for (const [name, value] of Object.entries(values)) text = text.split(`{${name}}`).join(String(value));
  return text;
}

function cardItem(card) {
  const info = state.texts.cards[card] || { name: `#${card}`, kind: "" };
  return el("li", { class: "card", "data-kind": info.kind, text: info.name });
}

function fill(list, items, empty = true) {
  list.replaceChildren(...items);
  if (!items.length && empty) list.append(el("li", { class: "empty", text: ui("empty") }));
}

// ---------------------------------------------------------------- the page's skeleton

const app = document.getElementById("app");
const status = document.getElementById("status");
const parts = {};

function build() {
  const header = el("header");
  const title = el("h1", { text: "biblios-kit" });
  const select = el("select", { id: "lang", on: { change: () => switchLanguage(select.value) } });
  for (const [code, name] of LANGUAGES) select.append(el("option", { value: code, lang: code, text: name }));
  select.value = state.lang;
  const label = el("label", { for: "lang" });
  label.dataset.ui = "language";
  parts.notify = el("button", { type: "button", class: "step", hidden: "", on: { click: askNotifications } });
  parts.notify.dataset.ui = "notify";
  header.append(title, el("div", { class: "lang" }, parts.notify, label, select));

  const now = section("now", "now");
  parts.turn = el("p", { id: "turn", class: "turn", "aria-live": "polite" });
  parts.phase = el("p", { id: "phase", class: "phase" });
  parts.focus = el("p", { id: "focus", class: "focus" });
  parts.settings = el("p", { id: "settings", class: "phase" });
  parts.clock = el("p", { id: "clock", class: "clock", hidden: "" });
  parts.standIn = el("p", { id: "stand-in", class: "warning", hidden: "" });
  parts.back = el("button", { type: "button", id: "back", hidden: "", on: { click: () => send({ type: "back" }) } });
  parts.back.dataset.ui = "back";
  parts.votes = el("p", { id: "votes" });
  now.append(parts.turn, parts.phase, parts.focus, parts.settings, parts.clock, parts.standIn, parts.back, parts.votes);

  const actions = section("actions", "actions");
  parts.buttons = el("div", { id: "choices", role: "group", "aria-labelledby": "actions-h" });
  parts.warning = el("p", { id: "bluff", class: "warning", role: "note" });
  parts.help = el("p", { class: "help" });
  parts.help.dataset.ui = "actions_help";
  actions.append(parts.buttons, parts.warning, parts.help);
  parts.actions = actions;

  const hand = section("hand", "term:hand");
  parts.hand = el("ul", { class: "cards" });
  hand.append(parts.hand);
  parts.handSection = hand;

  const board = section("board", "term:board");
  parts.dice = el("ul", { class: "dice" });
  board.append(parts.dice);

  const players = section("players", "players");
  parts.players = el("ul", { class: "players" });
  players.append(parts.players);

  const piles = section("piles", "piles");
  parts.piles = el("dl", { class: "piles" });
  parts.public = el("ul", { class: "cards" });
  piles.append(parts.piles, parts.public);

  const end = section("end", "end");
  parts.summary = el("p", { class: "summary" });
  parts.ranking = el("ol", { class: "ranking" });
  parts.awards = el("ul", { class: "awards" });
  parts.totals = el("table", { class: "totals", tabindex: "0" }); // it may scroll sideways on a phone
  parts.hands = el("div", { class: "hands" });
  parts.record = el("a", { href: `${base}/record`, download: `${table}.json` });
  parts.record.dataset.ui = "record";
  const rankingHead = el("h3");
  rankingHead.dataset.ui = "ranking";
  const awardsHead = el("h3");
  awardsHead.dataset.ui = "awards";
  const handsHead = el("h3");
  handsHead.dataset.ui = "final_hands";
  const replayHead = el("h3", { id: "replay-h" });
  replayHead.dataset.ui = "replay";
  parts.previous = el("button", { type: "button", class: "step", on: { click: () => replayStep(-1) } });
  parts.previous.dataset.ui = "previous";
  parts.next = el("button", { type: "button", class: "step", on: { click: () => replayStep(1) } });
  parts.next.dataset.ui = "next";
  parts.slider = el("input", { type: "range", min: "0", max: "0", value: "0", "aria-labelledby": "replay-h",
    on: { change: () => loadReplay(Number(parts.slider.value)) } });
  parts.replay = el("div", { id: "replay", "aria-live": "polite" });
  const replay = el("div", { class: "replay", role: "group", "aria-labelledby": "replay-h" },
    el("div", { class: "replay-nav" }, parts.previous, parts.slider, parts.next), parts.replay);
  parts.rematch = el("button", { type: "button", class: "rematch", on: { click: askRematch } });
  parts.rematch.dataset.ui = "rematch";
  parts.rematchNote = el("p", { class: "rematch-note", role: "status" });
  end.append(parts.summary, el("p", {}, parts.rematch), parts.rematchNote, rankingHead, parts.ranking, awardsHead,
    parts.awards, parts.totals, handsHead, parts.hands, replayHead, replay, el("p", {}, parts.record));
  end.hidden = true;
  parts.end = end;

  const log = section("log", "log");
  parts.log = el("ol", { class: "log", tabindex: "0" });
  log.append(parts.log);

  const main = el("div", { class: "table" }, end, now, actions, hand, board, players, piles, log);
  app.replaceChildren(header, status, main);
}

// ---------------------------------------------------------------- drawing a view

function render() {
  const view = state.view;
  if (!view || !state.texts) return;
  // The words of this very version (labels, warnings, the "now" text); until they come, the plain actions.
  const live = state.lives.get(view.version) || { focus: "", phase: state.live ? state.live.phase : "", actions: {},
    bluffs: {}, end: null, version: view.version };
  document.documentElement.lang = state.lang;
  for (const node of document.querySelectorAll("[data-ui]")) node.textContent = ui(node.dataset.ui);
  const obs = view.observation;
  const seat = view.seat;
  // a seat without a name has its default name, in the page's language ("Jugador 3")
  const names = view.seats.map((s, i) => s.name || (state.texts.names || [])[i] || "");
  const mine = obs.legal_actions.length > 0;

  parts.turn.textContent = view.result ? ui("end")
    : mine ? ui("your_turn")
    : obs.current_player !== null ? ui("waiting", { player: names[obs.current_player] }) : "";
  parts.turn.classList.toggle("mine", mine);
  turnSignals(mine);
  parts.handSection.hidden = seat === null; // a spectator has no hand
  parts.settings.textContent = settingsText();
  parts.phase.textContent = live.phase;
  parts.focus.textContent = live.focus;

  // The choices: only the view's legal actions, labelled by the server (redrawn only when they change,
  // so a finger or the keyboard focus never loses its button).
  const key = JSON.stringify([view.version, obs.legal_actions, live.actions, live.bluffs, state.waiting, state.lang]);
  if (key !== parts.buttons.dataset.key) {
    parts.buttons.dataset.key = key;
    drawChoices(obs.legal_actions, live);
  }
  parts.buttons.dataset.labelled = String(state.lives.has(view.version));
  parts.actions.hidden = !mine;

  fill(parts.hand, obs.hand.map(cardItem));
  fill(parts.dice, obs.dice.map((value, die) =>
    el("li", { class: "die" }, el("span", { class: "die-name", text: state.texts.dice[die] || "" }),
      el("span", { class: "die-value", text: String(value) }))));

  const collections = names.map(() => []);
  for (const [player, card] of obs.acquired) if (collections[player]) collections[player].push(card);
  fill(parts.players, names.map((name, player) => {
    const item = el("li", { class: player === obs.current_player ? "player current" : "player" });
    const head = el("p", { class: "player-name" });
    head.append(el("strong", { text: name }));
    if (player === seat) head.append(" ", ui("you"));
    else if (state.info && view.seats[player].kind === "human") {
      const here = state.info.connected[player];
      head.append(" ", el("span", { class: here ? "presence here" : "presence away", text: `${here ? "●" : "○"} ${ui(here ? "connected" : "away")}` }));
    }
    else if (view.seats[player].kind !== "human" && state.texts.kinds && state.texts.kinds[player]) {
      head.append(el("span", { class: "kind", text: ` (${state.texts.kinds[player]})` }));
    }
    if (player === obs.current_player && !view.result) head.append(" ", el("span", { "aria-hidden": "true", text: "◀" }));
    const size = live.hand_sizes && live.hand_sizes[player];
    head.append(el("span", { class: "count", text: ` · ${size || `🂠 ${obs.hand_sizes[player]}`}` }));
    const list = el("ul", { class: "cards small", "aria-label": ui("collection", { player: name }) });
    fill(list, collections[player].map(cardItem));
    item.append(head, list);
    return item;
  }), false);

  const terms = state.texts.terms;
  parts.piles.replaceChildren(
    el("dt", { text: terms.draw_pile }), el("dd", { text: String(obs.draw_pile) }),
    el("dt", { text: terms.auction_pile }), el("dd", { text: String(obs.auction_pile) }),
    el("dt", { text: terms.public_space }), el("dd", { text: String(obs.public.length) }));
  fill(parts.public, obs.public.map(cardItem), false);
  parts.public.setAttribute("aria-label", terms.public_space);

  const wanted = state.log.map((line) => el("li", { class: line.heading ? "heading" : "", text: line.text }));
  for (const item of [...state.tableEvents].reverse()) { // each table event where the log stood when it came
    const text = eventText(item.event, names);
    if (text) wanted.splice(Math.min(item.at, wanted.length), 0, el("li", { class: "table-event", text }));
  }
  renderClock(names);
  if (parts.log.children.length !== wanted.length || parts.log.dataset.lang !== state.lang) {
    parts.log.replaceChildren(...wanted);
    parts.log.dataset.lang = state.lang;
    parts.log.scrollTop = parts.log.scrollHeight;
  }

  if (!performance.getEntriesByName("table-drawn").length) performance.mark("table-drawn"); // the first full table

  const end = view.result && live.end;
  const opening = end && parts.end.hidden;
  parts.end.hidden = !end;
  if (end) { renderEnd(end, names); renderRematch(view, names); }
  if (opening || (end && state.replayLang !== state.lang)) loadReplay(state.replayStep);
  if (opening) { // the game just ended: bring the end screen to the reader (and to screen readers)
    const heading = parts.end.querySelector("h2");
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  }
}

// ---------------------------------------------------------------- who is there, and the turn signals

function settingsText() {
  const info = state.info;
  if (!info) return "";
  const parts = [ui(info.hints_allowed ? "hints_on" : "hints_off"),
    ui(info.settings.spectators ? "spectators_on" : "spectators_off")];
  if (info.spectators) parts.push(ui("spectators", { count: info.spectators }));
  return parts.join(" · ");
}

function turnSignals(mine) {
  // The tab's title says whose turn it is; when the seat's turn comes while the tab is hidden, a notification.
  document.title = mine ? `▶ ${ui("your_turn")} · biblios-kit` : "biblios-kit";
  if (mine && !state.mine && document.hidden && "Notification" in window && Notification.permission === "granted") {
    try { new Notification(ui("your_turn"), { body: ui("notify_body", { table }), tag: `biblios-kit-${table}` }); }
    catch { /* a browser that allows notifications only from a service worker: the title says it */ }
  }
  state.mine = mine;
  parts.notify.hidden = !(state.view && state.view.seat !== null && "Notification" in window
    && Notification.permission === "default");
}

function askNotifications() {
  Notification.requestPermission().then(() => render(), () => render());
}

function drawChoices(legal, live) {
  const hadFocus = parts.buttons.contains(document.activeElement);
  const buttons = legal.map((action, index) => {
    const label = live.actions[action] || action;
    const bluff = live.bluffs[action];
    const button = el("button", { type: "button", class: bluff ? "choice bluff" : "choice", "data-action": action });
    if (index < 9) {
      button.append(el("kbd", { "aria-hidden": "true", text: String(index + 1) }), " ");
      button.setAttribute("aria-keyshortcuts", String(index + 1));
    }
    button.append(bluff ? `⚠ ${label}` : label);
    if (bluff) {
      button.setAttribute("aria-describedby", "bluff");
      const show = () => { parts.warning.textContent = bluff; };
      button.addEventListener("focus", show);
      button.addEventListener("pointerenter", show);
    }
    button.disabled = state.waiting;
    button.addEventListener("click", () => act(action));
    return button;
  });
  parts.buttons.replaceChildren(...buttons);
  const firstBluff = legal.find((a) => live.bluffs[a]);
  parts.warning.textContent = firstBluff ? live.bluffs[firstBluff] : "";
  parts.warning.hidden = !firstBluff;
  if (hadFocus && buttons.length) buttons[0].focus();
}

function renderEnd(end, names) {
  parts.summary.textContent = end.summary;
  parts.ranking.replaceChildren(...end.ranking.map((line) => el("li", { text: line })));
  parts.awards.replaceChildren(...end.awards.map((a) => el("li", { text: `${a.die} (${a.value}): ${a.reason}` })),
    ...(end.bonuses || []).map((text) => el("li", { text })));
  const head = el("tr", {}, el("th", { scope: "col", text: ui("totals") }),
    ...names.map((name) => el("th", { scope: "col", text: name })));
  const rows = end.totals.map((row) => el("tr", {}, el("th", { scope: "row", text: row.category }),
    ...row.totals.map((t) => el("td", { text: String(t) }))));
  const vp = el("tr", { class: "vp" }, el("th", { scope: "row", text: end.vp }),
    ...end.victory_points.map((t) => el("td", { text: String(t) })));
  parts.totals.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows, vp));
  parts.hands.replaceChildren(...end.hands.map((hand, player) => {
    const list = el("ul", { class: "cards small", "aria-label": names[player] });
    fill(list, hand.map((name) => el("li", { class: "card", text: name })));
    return el("div", {}, el("h4", { text: names[player] }), list);
  }));
}

// ---------------------------------------------------------------- the rematch (seats only; the server decides)

function renderRematch(view, names) {
  parts.rematch.hidden = view.seat === null;
  parts.rematch.disabled = state.askedRematch;
  const votes = (state.rematch && Array.isArray(state.rematch.votes)) ? state.rematch.votes : [];
  const people = (which) => names.filter((_name, seat) => votes[seat] === which && view.seats[seat].kind === "human");
  const lines = [];
  if (people(true).length) lines.push(ui("rematch_yes", { players: people(true).join(", ") }));
  if (people(false).length) lines.push(ui("rematch_no", { players: people(false).join(", ") }));
  parts.rematchNote.textContent = lines.join(" ");
}

async function askRematch() {
  state.askedRematch = true;
  render();
  try {
    const reply = await fetch(`${base}/rematch`, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ rematch: true }) });
    const data = await reply.json();
    if (reply.ok && data.new_table) { location.assign(`${base}/rematch/go`); return; } // everyone had agreed already
    if (reply.ok) state.rematch = data;
    else state.askedRematch = false;
  } catch { state.askedRematch = false; }
  render();
}

// ---------------------------------------------------------------- the replay of a finished game

function replayStep(delta) {
  loadReplay(Math.max(0, Math.min(state.replayMoves, state.replayStep + delta)));
}

async function loadReplay(step) {
  state.replayLang = state.lang;
  try {
    const reply = await fetch(`${base}/replay?step=${step}&lang=${encodeURIComponent(state.lang)}`,
      { credentials: "same-origin", cache: "no-store" });
    if (!reply.ok) return;
    const data = await reply.json();
    state.replayStep = data.step;
    state.replayMoves = data.moves;
    drawReplay(data);
  } catch { /* the next step or language switch asks again */ }
}

function drawReplay(data) {
  parts.slider.max = String(data.moves);
  parts.slider.value = String(data.step);
  parts.slider.setAttribute("aria-valuetext", data.head);
  parts.previous.disabled = data.step <= 0;
  parts.next.disabled = data.step >= data.moves;
  const table = el("table", { class: "totals", tabindex: "0" });
  table.append(el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "" }),
    ...data.columns.map((c) => el("th", { scope: "col", text: c })))),
  el("tbody", {}, ...data.rows.map((row) => el("tr", {}, el("th", { scope: "row", text: row.name }),
    ...row.cells.map((v) => el("td", { text: String(v) }))))));
  parts.replay.replaceChildren(
    el("p", { class: "replay-head" }, el("strong", { text: data.head }), ` · ${data.phase}`),
    data.move ? el("p", { text: data.move }) : "",
    el("ul", { class: "sentences" }, ...data.sentences.map((line) => el("li", { text: line }))),
    el("ul", { class: "dice" }, ...data.dice.map(([name, value]) => el("li", { class: "die" },
      el("span", { class: "die-name", text: name }), el("span", { class: "die-value", text: String(value) })))),
    el("p", { text: `${data.public_space}:` }),
    el("ul", { class: "cards small" }, ...data.public.map((name) => el("li", { class: "card", text: name }))),
    table);
}

// ---------------------------------------------------------------- texts from the server

async function fetchTexts(full = false) {
  if (state.fetching) {
    state.fetching.again = full ? "full" : state.fetching.again || true;
    return;
  }
  const job = { again: false };
  state.fetching = job;
  try {
    const since = full ? 0 : (state.log.length ? state.log[state.log.length - 1].n + 1 : 0);
    const query = `lang=${encodeURIComponent(state.lang)}&since=${since}${full || !state.texts ? "&full=1" : ""}`;
    const reply = await fetch(`${base}/texts?${query}`, { credentials: "same-origin", cache: "no-store" });
    if (!reply.ok) throw new Error(`texts: ${reply.status}`);
    const data = await reply.json();
    if (data.lang !== state.lang) { job.again = "full"; return; }
    if (data.ui) {
      state.lives.clear();
      state.texts = { ui: data.ui, cards: data.cards, dice: data.dice, terms: data.terms, kinds: data.seat_kinds,
        names: data.seat_names };
      state.log = [];
    }
    const known = new Set(state.log.map((line) => line.n));
    for (const line of data.log) if (!known.has(line.n)) state.log.push(line);
    state.live = data;
    state.lives.set(data.version, data);
    for (const version of state.lives.keys()) if (version < data.version - 4) state.lives.delete(version);
    render();
    if (state.view && data.version < state.view.version) job.again = true;
  } catch (error) {
    job.again = false;
    setTimeout(() => fetchTexts(full), 1000);
  } finally {
    state.fetching = null;
    if (job.again) fetchTexts(job.again === "full");
  }
}

function switchLanguage(lang) {
  state.lang = lang;
  document.documentElement.lang = lang;
  const url = new URL(location.href);
  url.searchParams.set("lang", lang);
  history.replaceState(null, "", url);
  fetchTexts(true);
}

// ---------------------------------------------------------------- the connection

function setStatus(key, kind) {
  status.textContent = ui(key) || status.textContent;
  status.dataset.state = kind;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${base}/ws`);
  state.socket = socket;
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify({ type: "hello", since: state.events, lang: state.lang, table_info: true, updates: true }));
  });
  socket.addEventListener("message", (message) => {
    let data;
    try { data = JSON.parse(message.data); } catch { return; }
    if (data.type === "view") receive(data);
    else if (data.type === "update") update(data, socket);
    else if (data.type === "table_info") {
      if (Array.isArray(data.connected) && data.settings) { state.info = data; render(); }
    }
    else if (data.type === "accepted") { state.waiting = false; render(); }
    else if (data.type === "rematch" && Array.isArray(data.votes)) { state.rematch = data; render(); }
    else if (data.type === "rematch_ready" && state.askedRematch) location.assign(`${base}/rematch/go`);
    else if (data.type === "table_event") {
      const same = (item) => ["kind", "seat", "time"].every((k) => item.event[k] === data.event[k]);
      if (data.event && typeof data.event.kind === "string" && !state.tableEvents.some(same)) { // (sent again on reconnecting)
        // a past event (sent on joining, before the log came) goes at the end; a new one where the log stands now
        state.tableEvents.push({ event: data.event, at: state.log.length || Infinity });
        render();
      }
    }
    else if (data.type === "clock") {
      if (Array.isArray(data.stand_in)) { state.clock = data; state.clockAt = performance.now(); render(); }
    }
    else if (data.type === "error") {
      state.waiting = false;
      if (STOPPING[data.code]) {
        state.stopped = STOPPING[data.code]; // the seat cannot go on: say why (in the page's words), stop trying
        setStatus(state.stopped, "error");
      } else if (data.view) receive(data.view);
      else if (data.code !== "stale_version") {
        status.textContent = ui("refused", { message: String(data.message).slice(0, 200) });
        status.dataset.state = "error";
        render();
      }
    }
  });
  socket.addEventListener("close", () => {
    if (state.socket !== socket) return;
    state.socket = null;
    state.waiting = false;
    if (state.stopped) { render(); return; }
    state.lost = true;
    setStatus("reconnecting", "lost");
    render();
    const delay = Math.min(10000, 500 * 2 ** state.attempt) * (0.75 + Math.random() / 2);
    state.attempt += 1;
    setTimeout(connect, delay);
  });
}

function receive(view) {
  if (typeof view.version !== "number" || !view.observation) return;
  if (state.view && view.version < state.view.version) return;
  if (view.first_event <= state.events) state.events = Math.max(state.events, view.first_event + view.events.length);
  state.view = view;
  body.dataset.version = String(view.version);
  state.attempt = 0;
  if (state.lost || status.dataset.state !== "ok") {
    state.lost = false;
    setStatus(view.seat === null ? "watching" : "caught_up", "ok");
  }
  render();
  fetchTexts(false);
}

// An update carries what changed since the last view this connection was sent: the observation's
// changed fields, the new events and, at the end, the result. Another base means a gap: connect
// again, for a whole view.
function update(data, socket) {
  const view = state.view;
  if (!view || data.base !== view.version || !data.observation || typeof data.observation !== "object") {
    socket.close();
    return;
  }
  receive({ ...view, version: data.version, observation: { ...view.observation, ...data.observation },
    first_event: data.first_event, events: data.events, result: "result" in data ? data.result : view.result });
}

function act(action) {
  if (state.waiting || !state.socket || state.socket.readyState !== WebSocket.OPEN || !state.view) return;
  if (!state.view.observation.legal_actions.includes(action)) return;
  state.waiting = true;
  for (const button of parts.buttons.querySelectorAll("button")) button.disabled = true;
  state.socket.send(JSON.stringify({ type: "action", action, version: state.view.version, lang: state.lang }));
}

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target && (target.tagName === "SELECT" || target.tagName === "INPUT")) return;
  if (/^[1-9]$/.test(event.key)) {
    const button = parts.buttons.querySelectorAll("button")[Number(event.key) - 1];
    if (button && !button.disabled) {
      event.preventDefault();
      button.focus();
      button.click();
    }
  }
});

// ---------------------------------------------------------------- clocks and stand-ins (net/clocks.py)

const EVENT_KEYS = { back: "ev_back", vote: "ev_vote", vote_passed: "ev_vote_passed" };

function eventText(event, names) {
  let key = EVENT_KEYS[event.kind];
  if (event.kind === "time_out") key = event.clock === "game" ? "ev_time_out_game" : "ev_time_out_move";
  if (event.kind === "stand_in") key = event.reason === "absent" ? "ev_stand_in_absent" : "ev_stand_in";
  if (!key || names[event.seat] === undefined) return "";
  return ui(key, { player: names[event.seat], voter: names[event.by] || "", votes: Number(event.votes) || 0,
    needed: Number(event.needed) || 0 });
}

function clockTime(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor(whole / 60) % 60, whole % 60];
  return `${h ? `${h}:${String(m).padStart(2, "0")}` : m}:${String(s).padStart(2, "0")}`;
}

function renderClock(names) {
  const clock = state.clock;
  const view = state.view;
  const seat = view.seat;
  const standIn = clock ? clock.stand_in : [];
  // The clock of the seat to move, counting down.
  let text = "";
  if (clock && clock.running && clock.to_move !== null && !view.result) {
    const gone = (performance.now() - state.clockAt) / 1000;
    const player = names[clock.to_move] || "";
    if (typeof clock.move_left === "number") text = ui("clock_move", { time: clockTime(clock.move_left - gone) });
    else if (clock.game_left) text = ui("clock_game", { time: clockTime(clock.game_left[clock.to_move] - gone) });
    if (text) text = `⏱ ${player}: ${text}`;
  }
  parts.clock.textContent = text;
  parts.clock.hidden = !text;
  // Who the stand-in plays for; the button that takes one's seat back.
  const played = standIn.map((reason, player) => (reason ? player : -1)).filter((player) => player >= 0);
  const mine = seat !== null && standIn[seat];
  parts.standIn.textContent = played.map((player) => (player === seat ? ui("stand_in_you")
    : ui("ev_stand_in", { player: names[player] || "" }))).join(" ");
  parts.standIn.hidden = !played.length;
  parts.back.hidden = !mine || mine === "game_time" || !!view.result;
  // A vote to let the stand-in play for a person who is away.
  const away = (state.info && seat !== null && !view.result) ? view.seats.map((s, player) => player)
    .filter((player) => player !== seat && view.seats[player].kind === "human" && !state.info.connected[player]
      && !standIn[player]) : [];
  const key = JSON.stringify([away, state.lang]);
  if (parts.votes.dataset.key !== key) {
    parts.votes.dataset.key = key;
    parts.votes.replaceChildren(...away.map((player) => el("button", { type: "button", class: "step",
      text: ui("vote", { player: names[player] || "" }), on: { click: () => send({ type: "stand_in_vote", seat: player }) } })));
  }
  clearTimeout(state.clockTimer);
  if (text) state.clockTimer = setTimeout(() => renderClock(names), 1000); // the countdown alone, not the table
}

function send(message) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) {
    state.socket.send(JSON.stringify({ ...message, lang: state.lang }));
  }
}

build();
fetchTexts(true).then(connect);
