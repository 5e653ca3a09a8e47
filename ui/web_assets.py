"""What the page carries besides components: the keyboard shortcuts of the Rate tab (``SHORTCUTS_JS``, in the
page head) and the style sheet (``CSS``).

Shortcuts act only while the Rate tab's verdict is on screen. C moves into the corrected answer (to type the right
answer after 2); nothing else ever puts the focus in a text box. While the focus is in a text box only Ctrl+Enter
acts (it saves); the other keys type as usual. Ctrl+Enter also takes the focus out of the text box at once, so a
number pressed right after it picks a verdict instead of landing in the corrected answer. Keys pressed while a save
is on its way are ignored (the next run is not on screen yet; a verdict for it would be a guess).
"""

from __future__ import annotations

from ui.web_evidence import TIMELINE_CSS

SHORTCUTS_JS = """
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
                               if (box) box.focus(); }};
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

CSS = """
#ask-chat .message-wrap h3 { margin: 0.2em 0; }
#ask-answer { min-height: 1.5em; font-size: 1.1em; }
#ask-chat img, #replay-chat img, #rate-chat img { max-height: 420px; max-width: 100%; object-fit: contain; }
""" + TIMELINE_CSS
