import { createHash } from 'node:crypto';
import { SCREEN_METER_SOURCE, ScreenMeterRules } from './screen-meter';

export interface SimulatorPage {
  html: string;
  /** Admits the page's own inline style and script by their hashes, and requests to this origin only. */
  contentSecurityPolicy: string;
}

export interface SimulatorDefaults {
  serviceCode: string;
  phoneNumber: string;
  networkCode: string;
}

const STYLE = `
:root { color-scheme: light; font-family: system-ui, sans-serif; }
body { margin: 0; background: #eef1f4; color: #1b1f23; display: flex; flex-wrap: wrap; align-items: flex-start; gap: 24px; padding: 24px; }
h1 { font-size: 1.1rem; margin: 0 0 8px; }
h2 { font-size: 0.95rem; margin: 16px 0 6px; }
.phone { width: 300px; background: #22262b; border-radius: 36px; padding: 28px 18px 22px; box-shadow: 0 8px 24px rgba(0,0,0,.25); }
.speaker { width: 70px; height: 6px; border-radius: 3px; background: #444a52; margin: 0 auto 16px; }
.screen { background: #c9d8c5; border-radius: 6px; min-height: 300px; padding: 8px 10px; display: flex; flex-direction: column; }
.meter { font: 12px ui-monospace, monospace; color: #2d4a2b; border-bottom: 1px solid #9fb59b; padding-bottom: 4px; margin-bottom: 6px; }
.meter.over { color: #a4161a; font-weight: bold; }
.screen-text { font: 14px/1.35 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; flex: 1; }
.reply { display: flex; gap: 6px; margin-top: 14px; }
.reply input { flex: 1; font-size: 16px; padding: 6px 8px; border-radius: 6px; border: 1px solid #555; }
button { font-size: 14px; padding: 6px 12px; border-radius: 6px; border: 1px solid #555; background: #f6f8fa; cursor: pointer; }
button:disabled, input:disabled { opacity: .5; cursor: default; }
.keys { display: flex; justify-content: space-between; margin-top: 12px; }
#dial { background: #2e7d32; color: #fff; border-color: #1b5e20; }
#hangup { background: #c62828; color: #fff; border-color: #8e0000; }
.panel { flex: 1; min-width: 320px; max-width: 640px; }
label { display: block; font-size: 0.85rem; margin: 6px 0 2px; }
.panel input[type=text], textarea { width: 100%; box-sizing: border-box; font: 14px ui-monospace, monospace; padding: 4px 6px; }
textarea { height: 110px; }
code { background: #fff; padding: 1px 4px; border-radius: 3px; overflow-wrap: anywhere; }
.transcript { font: 12px ui-monospace, monospace; padding-left: 20px; }
.transcript li { margin-bottom: 6px; white-space: pre-wrap; }
`;

/**
 * The page's behaviour, as an aggregator behaves: a dial posts `text=""`, each reply posts every input so far joined
 * by `*`, form-encoded, to POST /api/ussd; an `END` closes the session. `RULES` and `DEFAULTS` are put in front of it.
 */
const SCRIPT = `
var $ = function (id) { return document.getElementById(id); };
var session = null;

function randomSessionId() {
  var bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return 'SIM_' + Array.from(bytes, function (b) { return b.toString(16).padStart(2, '0'); }).join('');
}

function setBusy(busy) {
  var open = session !== null && !session.ended;
  $('dial').disabled = busy;
  $('replay').disabled = busy;
  $('reply').disabled = busy || !open;
  $('send').disabled = busy || !open;
  $('hangup').disabled = busy || !open;
}

function show(screen) {
  var meter = $('meter');
  $('screen-text').textContent = screen.text;
  meter.textContent = screen.meterLabel;
  meter.className = 'meter' + (screen.over ? ' over' : '');
  meter.dataset.kind = screen.kind || '';
  meter.dataset.encoding = screen.encoding || '';
  meter.dataset.used = screen.used === undefined ? '' : String(screen.used);
  meter.dataset.limit = screen.limit === undefined ? '' : String(screen.limit);
  $('session-id').textContent = session ? session.id : '-';
  $('cumulative').textContent = session ? JSON.stringify(shownText()) : '-';
  $('reply').type = asksForPin(screen) ? 'password' : 'text';
  $('phone').dataset.state = session === null ? 'idle' : session.ended ? 'ended' : 'open';
}

function screenOf(status, body) {
  var match = /^(CON|END) ([\\s\\S]*)$/.exec(body);
  if (!match) return { text: body, meterLabel: 'HTTP ' + status + ': not a USSD answer', over: true };
  var measure = meterScreen(match[2], RULES);
  return {
    kind: match[1], text: match[2], encoding: measure.encoding, used: measure.used, limit: measure.limit,
    over: measure.used > measure.limit,
    meterLabel: (status === 200 ? '' : 'HTTP ' + status + ' \\u00b7 ') + match[1] + ' \\u00b7 ' + measure.encoding +
      ' \\u00b7 ' + measure.used + '/' + measure.limit,
  };
}

// A handset masks what is typed on a screen that asks for a PIN; the page shows such an entry masked everywhere it
// shows the session's text (the request still carries it, as the handset's does). Menu choices and the navigation
// keys stay readable: they are never a PIN.
function asksForPin(screen) {
  return screen.kind === 'CON' && /\\bPIN\\b/.test(screen.text);
}

function shownText() {
  return session.inputs.map(function (input, at) {
    return session.masked[at] ? input.replace(/./gu, '\\u2022') : input;
  }).join('*');
}

function log(text, screen) {
  var item = document.createElement('li');
  item.textContent = 'text=' + JSON.stringify(text) + '\\n\\u2190 ' + (screen.kind ? screen.meterLabel + '\\n' : '') + screen.text;
  $('transcript').appendChild(item);
}

async function hop() {
  var text = session.inputs.join('*');
  var form = new URLSearchParams({
    sessionId: session.id, serviceCode: session.serviceCode, phoneNumber: session.phoneNumber,
    networkCode: session.networkCode, text: text,
  });
  var screen;
  try {
    var response = await fetch('/api/ussd', { method: 'POST', body: form });
    screen = screenOf(response.status, await response.text());
  } catch (error) {
    screen = { text: String(error), meterLabel: 'no answer', over: true };
  }
  session.hops += 1;
  session.lastResponse = screen.kind ? screen.kind + ' ' + screen.text : screen.text;
  session.pinAsked = asksForPin(screen);
  log(shownText(), screen);
  if (screen.kind !== 'CON') {
    session.ended = true;
    await notifyEnd(screen.kind === 'END' ? 'Success' : 'Failed', screen.kind ? '' : screen.meterLabel);
  }
  show(screen);
  return screen;
}

// The aggregator's second callback: once a session is over, what became of it (AT sends it form-encoded too).
async function notifyEnd(status, errorMessage) {
  if (!$('notify').checked || session.notified) return;
  session.notified = true;
  var form = new URLSearchParams({
    sessionId: session.id, serviceCode: session.serviceCode, phoneNumber: session.phoneNumber,
    networkCode: session.networkCode, status: status, durationInMillis: String(Date.now() - session.startedAt),
    hopsCount: String(session.hops), input: session.inputs.join('*'), lastAppResponse: session.lastResponse || '',
    errorMessage: errorMessage, cost: 'KES 0.0000', date: new Date().toISOString().slice(0, 19).replace('T', ' '),
  });
  var outcome;
  try {
    var response = await fetch('/api/ussd/events', { method: 'POST', body: form });
    outcome = 'HTTP ' + response.status + ' ' + (await response.text());
  } catch (error) {
    outcome = String(error);
  }
  $('notified').textContent = status + ' \u2192 ' + outcome;
}

async function dial() {
  session = {
    id: randomSessionId(), inputs: [], masked: [], pinAsked: false, hops: 0, ended: false, startedAt: Date.now(),
    serviceCode: $('service-code').value.trim(), phoneNumber: $('phone-number').value.trim(),
    networkCode: $('network-code').value.trim(),
  };
  $('transcript').replaceChildren();
  $('notified').textContent = '-';
  return hop();
}

async function send(input) {
  session.inputs.push(input);
  session.masked.push(session.pinAsked && !/^(\\*|0|00|98|[1-9])$/.test(input));
  return hop();
}

async function run(work) {
  setBusy(true);
  try { await work(); } finally { setBusy(false); }
}

$('dial').addEventListener('click', function () { run(dial); });
$('reply-form').addEventListener('submit', function (event) {
  event.preventDefault();
  if (!session || session.ended) return;
  var input = $('reply').value;
  $('reply').value = '';
  run(function () { return send(input); }).then(function () { $('reply').focus(); });
});
$('hangup').addEventListener('click', function () {
  if (!session || session.ended) return;
  session.ended = true;
  run(async function () {
    await notifyEnd('Incomplete', '');
    show({ text: 'Session cancelled on the handset.', meterLabel: 'hung up' });
  });
});
$('use-inputs').addEventListener('click', function () {
  $('script').value = session ? session.inputs.join('\\n') : '';
});
$('replay').addEventListener('click', function () {
  var inputs = $('script').value.split(/\\r?\\n/);
  while (inputs.length > 0 && inputs[inputs.length - 1] === '') inputs.pop();
  run(async function () {
    var screen = await dial();
    for (var input of inputs) {
      if (screen.kind !== 'CON') break;
      screen = await send(input);
    }
  });
});
$('phone-number').value = DEFAULTS.phoneNumber;
$('service-code').value = DEFAULTS.serviceCode;
$('network-code').value = DEFAULTS.networkCode;
setBusy(false);
`;

const BODY = `
<main class="phone" id="phone" data-state="idle" aria-label="Handset">
  <div class="speaker"></div>
  <section class="screen" aria-live="polite">
    <div class="meter" id="meter">idle</div>
    <pre class="screen-text" id="screen-text">Dial the service code to start a session.</pre>
  </section>
  <form class="reply" id="reply-form">
    <input id="reply" type="text" autocomplete="off" aria-label="Reply" placeholder="Reply">
    <button id="send" type="submit">Send</button>
  </form>
  <div class="keys">
    <button id="dial" type="button">Dial</button>
    <button id="hangup" type="button">Hang up</button>
  </div>
</main>
<section class="panel">
  <h1>USSD simulator</h1>
  <p>Each reply is sent to <code>POST /api/ussd</code> form-encoded, with <code>text</code> holding every input so far
  joined by <code>*</code>, as an aggregator sends it.</p>
  <label for="phone-number">Phone number (E.164)</label><input id="phone-number" type="text">
  <label for="service-code">Service code</label><input id="service-code" type="text">
  <label for="network-code">Network code</label><input id="network-code" type="text">
  <label><input id="notify" type="checkbox" checked> When the session ends, send the session-end notification to
  <code>POST /api/ussd/events</code> (status, duration, hops and <code>input</code>, as the aggregator does)</label>
  <h2>Session</h2>
  <div>sessionId <code id="session-id">-</code></div>
  <div>text <code id="cumulative">-</code></div>
  <div>session-end notification <code id="notified">-</code></div>
  <h2>Replay a scripted session</h2>
  <label for="script">One input per line; replay dials a new session and sends them in turn</label>
  <textarea id="script" spellcheck="false"></textarea>
  <div><button id="replay" type="button">Replay</button> <button id="use-inputs" type="button">Use this session's inputs</button></div>
  <h2>Transcript</h2>
  <ol class="transcript" id="transcript"></ol>
</section>
`;

/** JSON inside a script element: `<` escaped, so no value can close the element. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

const sha256 = (text: string): string =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The whole page, built once: one HTML document with its style and script inline, no other asset. */
export function simulatorPage(rules: ScreenMeterRules, defaults: SimulatorDefaults): SimulatorPage {
  const script = `"use strict";\nvar RULES = ${scriptJson(rules)};\nvar DEFAULTS = ${scriptJson(defaults)};\n${SCREEN_METER_SOURCE}\n${SCRIPT}`;
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>USSD simulator</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    `<body>${BODY}<script>${script}</script></body>`,
    '</html>',
  ].join('\n');
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(STYLE)}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}
