// Injected at the top of <head> by tests/browser/chromium_page.py, before any
// script of the page: records what goes wrong from the first byte on, and
// gives the suite's probe (injected before </body>) a few helpers. The
// verdict is published as JSON in a hidden pre element, id dfx-probe-verdict, after every
// change, so even a probe that never finishes leaves the errors behind.
(function () {
  const verdict = { done: false, step: 'loading', errors: [], resources: [], failures: [], facts: {} };
  const publish = () => {
    let pre = document.getElementById('dfx-probe-verdict');
    if (!pre) {
      pre = document.createElement('pre');
      pre.id = 'dfx-probe-verdict';
      pre.hidden = true;
      (document.body || document.documentElement).appendChild(pre);
    }
    pre.textContent = JSON.stringify(verdict);
  };
  // window.onerror's event, in the capture phase so failed <img>/<link> loads
  // (which do not bubble) are seen too.
  window.addEventListener('error', (e) => {
    if (e instanceof ErrorEvent) verdict.errors.push(`${e.message} (${e.filename}:${e.lineno}:${e.colno})`);
    else verdict.errors.push(`failed to load <${e.target?.tagName?.toLowerCase()}> ${e.target?.src || e.target?.href || ''}`);
    publish();
  }, true);
  window.addEventListener('unhandledrejection', (e) => { verdict.errors.push(`unhandled rejection: ${e.reason}`); publish(); });
  const consoleError = console.error.bind(console);
  console.error = (...args) => { verdict.errors.push('console.error: ' + args.join(' ')); publish(); consoleError(...args); };

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const probe = {
    expect: () => window.dfxExpect,
    step(name) { verdict.step = name; },
    fact(name, value) { verdict.facts[name] = value; },
    // Records a failure (the probe carries on, so one run reports them all).
    check(ok, message) { if (!ok) verdict.failures.push(`${verdict.step}: ${message}`); return !!ok; },
    // Resolves when pred() is true; records a failure after `ms` milliseconds.
    async until(pred, ms, message) {
      for (let t = 0; t <= ms; t += 10) {
        if (pred()) return true;
        await sleep(10);
      }
      return probe.check(false, message);
    },
    // A key press as the page sees it: keydown then keyup on the focused
    // element (the body here), bubbling to document and window.
    key(key) {
      const target = document.activeElement || document.body;
      const init = { key, code: key.length === 1 ? 'Key' + key.toUpperCase() : key, bubbles: true, cancelable: true };
      target.dispatchEvent(new KeyboardEvent('keydown', init));
      target.dispatchEvent(new KeyboardEvent('keyup', init));
    },
    // The CSS transform the browser applies to `el`, as { scale, tx, ty }
    // (null for none or a transform that is not a uniform scale + translation).
    transform(el) {
      const t = getComputedStyle(el).transform;
      if (t === 'none') return { scale: 1, tx: 0, ty: 0, css: t };
      const m = /^matrix\(([^)]*)\)$/.exec(t);
      if (!m) return null;
      const [a, b, c, d, e, f] = m[1].split(',').map(Number);
      if (b !== 0 || c !== 0 || Math.abs(a - d) > 1e-9) return null;
      return { scale: a, tx: e, ty: f, css: t };
    },
    // Waits for the load event and a couple of frames, runs fn(probe,
    // expectations), then publishes the verdict with done = true.
    run(fn) {
      const go = async () => {
        try {
          await sleep(50);
          await fn(probe, window.dfxExpect);
        } catch (e) {
          verdict.failures.push(`${verdict.step}: probe threw ${e && e.stack ? e.stack : e}`);
        }
        verdict.resources = performance.getEntriesByType('resource').map((r) => r.name);
        verdict.done = true;
        publish();
      };
      if (document.readyState === 'complete') go(); else window.addEventListener('load', go);
    },
  };
  window.dfxProbe = probe;
  document.addEventListener('DOMContentLoaded', publish);
})();
