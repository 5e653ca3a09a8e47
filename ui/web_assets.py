"""What the page carries besides components: the keyboard shortcuts of the Rate tab (``SHORTCUTS_JS``) and the
box editor's script (``ui.web_boxes``), together ``HEAD_JS`` in the page head, and the style sheet (``CSS``).

Shortcuts act only while the Rate tab's verdict is on screen. C moves into the corrected answer (to type the right
answer after 2); nothing else ever puts the focus in a text box. While the focus is in a text box only Ctrl+Enter
acts (it saves); the other keys type as usual. Ctrl+Enter also takes the focus out of the text box at once, so a
number pressed right after it picks a verdict instead of landing in the corrected answer. Keys pressed while a save
is on its way are ignored (the next run is not on screen yet; a verdict for it would be a guess). Step marks:
[ and ] choose a step (outlined; the first step when a run loads), G / M / K / B toggle its good call / wrong
model / wrong skill / bad tool output (``ui.web_rate_form.MARK_KEYS``).
"""

from __future__ import annotations

from ui.web_boxes import BOXES_CSS, BOXES_JS
from ui.web_evidence import TIMELINE_CSS

SHORTCUTS_JS = r"""
<script>
(() => {
  const visible = (el) => el && el.offsetParent !== null;
  const click = (sel) => { const el = document.querySelector(sel); if (visible(el)) el.click(); };
  const runId = () => { const box = document.querySelector('#rate-run-id input, #rate-run-id textarea');
                        return box ? box.value : ''; };
  const message = () => { const el = document.querySelector('#rate-saved'); return el ? el.innerText : ''; };
  // While a save is on its way: the run id and message it was sent with. It ends when another run shows up, or a
  // new message that is not a success (a refused save keeps the same run), or after 3 s at most.
  let savingFrom = null;
  const saving = () => {
    if (savingFrom === null) return false;
    const now = message();
    if (runId() !== savingFrom.run || (now !== savingFrom.message && !now.startsWith('Saved'))) {
      savingFrom = null;
      return false;
    }
    return true;
  };
  const startSaving = () => {
    savingFrom = {run: runId(), message: message()};
    setTimeout(() => { savingFrom = null; }, 3000);
  };
  const pick = (value) => {
    const input = document.querySelector(`#rate-verdict input[value="${value}"]`);
    if (input) { input.click(); input.focus({preventScroll: true}); }
  };
  const typing = (el) => {
    const tag = (el && el.tagName || '').toLowerCase();
    if (tag === 'textarea' || (el && el.isContentEditable)) return true;
    return tag === 'input' && !['radio', 'checkbox', 'button', 'submit'].includes((el.type || '').toLowerCase());
  };
  const save = () => {
    const active = document.activeElement;
    if (active && active.blur) active.blur();
    startSaving();
    click('#rate-submit');
  };
  // Step marks by key: [ and ] choose the step (outlined), G / M / K / B toggle its marks. The chosen step goes
  // back to the first one whenever another run loads.
  let markStep = 0, markRun = null;
  const markLabels = () => [...document.querySelectorAll('#rate-marks label')];
  const stepOf = (label) => { const m = /^Step (\d+)/.exec(label.innerText.trim()); return m ? +m[1] : null; };
  const showStep = () => {
    if (markRun !== runId()) { markRun = runId(); markStep = 1; }
    markLabels().forEach(l => l.classList.toggle('mae-step-chosen', stepOf(l) === markStep));
  };
  const moveStep = (delta) => {
    showStep();
    const steps = [...new Set(markLabels().map(stepOf).filter(n => n !== null))];
    if (!steps.length) return;
    const at = Math.max(0, steps.indexOf(markStep));
    markStep = steps[Math.min(steps.length - 1, Math.max(0, at + delta))];
    markRun = runId(); showStep();
  };
  const toggleMark = (mark) => {
    showStep();
    const label = markLabels().find(l => stepOf(l) === markStep && l.innerText.trim().endsWith(': ' + mark));
    const box = label && label.querySelector('input');
    if (box) box.click();
  };
  const MARKS = {'g': 'good call', 'm': 'wrong model', 'k': 'wrong skill', 'b': 'bad tool output'};
  // Ctrl+Enter is taken in the capture phase, before the focused component sees it: a checkbox ("No correction
  // known") toggles on Enter, which would untick it on its way to the save.
  document.addEventListener('keydown', (ev) => {
    if (!visible(document.querySelector('#rate-verdict'))) return;
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); ev.stopPropagation(); save(); }
  }, true);
  document.addEventListener('keydown', (ev) => {
    if (!visible(document.querySelector('#rate-verdict'))) return;
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) return;
    if (typing(ev.target) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const keys = {'1': () => pick('correct'), '2': () => pick('incorrect'), '3': () => pick('partial'),
                  'n': () => click('#rate-next'), 's': () => click('#rate-skip'), 'u': () => click('#rate-undo'),
                  'c': () => { const box = document.querySelector('#rate-corrected textarea, #rate-corrected input');
                               if (box) box.focus(); },
                  '[': () => moveStep(-1), ']': () => moveStep(1)};
    Object.entries(MARKS).forEach(([key, mark]) => { keys[key] = () => toggleMark(mark); });
    const act = keys[ev.key.toLowerCase()];
    if (!act) return;
    ev.preventDefault();
    if (!saving()) act();
  });
  document.addEventListener('click', (ev) => {
    if (ev.isTrusted && ev.target && ev.target.closest && ev.target.closest('#rate-submit')) startSaving();
  }, true);
})();
</script>
"""

# Replay's table keeps each row one line high (cells cut with an ellipsis): each cell carries its full text as
# its hover title, kept up to date as pages of rows come and go.
TITLES_JS = """
<script>
(() => {
  const titled = () => document.querySelectorAll('#replay-table .cell-wrap').forEach(cell => {
    const text = cell.textContent.trim();
    if (cell.title !== text) cell.title = text;
  });
  new MutationObserver(titled).observe(document.documentElement, {childList: true, subtree: true,
                                                                  characterData: true});
})();
</script>
"""

#: Everything the page head carries: the Rate tab's keys, the box editor and Replay's hover titles.
HEAD_JS = SHORTCUTS_JS + BOXES_JS + TITLES_JS

CSS = """
#ask-chat .message-wrap h3 { margin: 0.2em 0; }
/* Icons as inline SVG masks in the text colour: no emoji font needed. */
.mae-icon-stop::before, .mae-icon-up::before, .mae-icon-down::before, .mae-icon-clear::before {
  content: ""; display: inline-block; width: 1em; height: 1em; margin-right: 0.4em; vertical-align: -0.12em;
  background: currentColor; -webkit-mask: var(--mae-icon) no-repeat center / contain;
  mask: var(--mae-icon) no-repeat center / contain; }
.mae-icon-stop { --mae-icon: url("data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect x='3' y='3' width='10' height='10' rx='1.5'/></svg>"); }
.mae-icon-up { --mae-icon: url("data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><path d='M2 8.5l4 4 8-9' stroke='black' stroke-width='2.4' fill='none'/></svg>"); }
.mae-icon-down { --mae-icon: url("data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><path d='M3 3l10 10M13 3L3 13' stroke='black' stroke-width='2.4' fill='none'/></svg>"); }
/* Clearing the view is an eraser wiping a line, not a trash can: nothing stored is deleted. */
.mae-icon-clear { --mae-icon: url("data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><path d='M9.6 2.2l4.2 4.2-6.6 6.6H4.4L2.2 10.8a1 1 0 0 1 0-1.4z' fill='none' stroke='black' stroke-width='1.4'/><path d='M5.6 6.2l4.2 4.2' stroke='black' stroke-width='1.4'/><path d='M8.5 14.2h6' stroke='black' stroke-width='1.6'/></svg>"); }
/* The chat's own trash button only empties the view; the labelled "Clear view" button replaces it. */
#ask-chat button[aria-label="Clear"], #replay-chat button[aria-label="Clear"],
#rate-chat button[aria-label="Clear"], #review-chat button[aria-label="Clear"], #ask-chat button[title="Clear"],
#replay-chat button[title="Clear"], #rate-chat button[title="Clear"],
#review-chat button[title="Clear"] { display: none !important; }
/* Replay rows: one line each, the full text on hover (the cell's title). */
.mae-trunc { display: block; max-width: 100%; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
/* A phone: one column, the answer first, the examples last. */
@media (max-width: 700px) {
  #ask-row { flex-direction: column !important; flex-wrap: nowrap !important; }
  #ask-left, #ask-right, #ask-left > .form, #ask-right > .form { display: contents !important; }
  #ask-row * { order: 5; }
  #ask-answer { order: 1 !important; } #ask-turn { order: 2 !important; }
  #ask-examples { order: 30 !important; }
  .mae-who { white-space: normal; }
  .mae-intro { display: none; }
}
#app-header { align-items: center; gap: 8px; }
#app-title p { margin: 0; }
.mae-who { text-align: right; white-space: nowrap; }
.mae-role { border: 1px solid #999; border-radius: 8px; padding: 0 6px; font-size: 0.85em; }
#rate-marks label.mae-step-chosen { outline: 2px solid #4a7fd4; outline-offset: 1px; }
#rate-top { align-items: center; }
#rate-keys { font-size: 0.85em; }
#rate-keys p { margin: 0; }
#rate-header p { margin: 0.1em 0; }
#ask-answer { min-height: 1.5em; font-size: 1.1em; }
#ask-chat img, #replay-chat img, #rate-chat img { max-height: 420px; max-width: 100%; object-fit: contain; }
""" + TIMELINE_CSS + BOXES_CSS
