// The deps page in a real browser (run by browser_test.py through
// tests/browser/chromium_page.py). Expectations in window.dfxExpect:
// { nodes, edges (null: not checked), badges, title, first_view ('fit', or
// 'readable' for a graph a fit would shrink below readable labels), ran (the
// clicked task's panel tells when it ran) }.
dfxProbe.run(async (p, expect) => {
  const near = (a, b, eps) => Math.abs(a - b) <= eps;
  const same = (s, t) => s && t && near(s.scale, t.scale, 1e-4 * Math.max(1, t.scale)) && near(s.tx, t.tx, 0.5) && near(s.ty, t.ty, 0.5);
  const show = (t) => (t ? `scale ${t.scale}, translate (${t.tx}, ${t.ty})` : 'not a scale + translation');

  p.step('load');
  p.check(document.title === expect.title, `title ${JSON.stringify(document.title)}, expected ${JSON.stringify(expect.title)}`);
  const stage = document.getElementById('stage');
  const svg = stage && stage.querySelector(':scope > svg');
  if (!p.check(svg, 'no <svg> directly inside #stage')) return;

  p.step('svg content');
  const nodes = [...svg.querySelectorAll('g.node')];
  const edges = [...svg.querySelectorAll('g.edge')];
  p.fact('nodes', nodes.length);
  p.fact('edges', edges.length);
  p.check(nodes.length === expect.nodes, `${nodes.length} g.node, expected ${expect.nodes}`);
  if (expect.edges !== null) p.check(edges.length === expect.edges, `${edges.length} g.edge, expected ${expect.edges}`);
  // Markers in glyphs the page's fonts have, not the reference's emoji.
  const emoji = [...svg.querySelectorAll('text')].filter((t) => /[\u{1F525}\u{2B50}]/u.test(t.textContent));
  p.check(emoji.length === 0, `${emoji.length} labels with an emoji marker, e.g. ${JSON.stringify(emoji[0]?.textContent)}`);
  // Drawn, not just present: every node has a box, every edge a path with length.
  const flat = nodes.filter((g) => { const b = g.getBBox(); return !(b.width > 0 && b.height > 0); });
  p.check(flat.length === 0, `${flat.length} nodes with an empty box, e.g. ${flat[0]?.querySelector('title')?.textContent}`);
  const bare = edges.filter((g) => { const path = g.querySelector('path'); return !path || !(path.getTotalLength() > 0); });
  p.check(bare.length === 0, `${bare.length} edges without a drawn path, e.g. ${bare[0]?.querySelector('title')?.textContent}`);
  // The script's SPMD badges (they need getBBox, so only a browser makes them).
  const badges = [...svg.querySelectorAll('text.spmd-badge')];
  p.fact('badges', badges.map((b) => b.textContent));
  p.check(badges.length === expect.badges, `${badges.length} SPMD badges, expected ${expect.badges}`);

  p.step('initial fit');
  await p.until(() => svg.style.transform !== '', 10000, 'the page never applied its first fit (requestAnimationFrame(fit))');
  const W = stage.clientWidth, H = stage.clientHeight;
  p.fact('stage', [W, H]);
  p.check(W > 0 && H > 0, `the stage has no size: ${W} x ${H}`);
  // A fit: 95 % of the stage along one axis, within it along the other, centred.
  const fitProblem = () => {
    const b = svg.getBoundingClientRect();
    const s = stage.getBoundingClientRect();
    const w = 0.95 * W, h = 0.95 * H;
    if (!(b.width > 0 && b.height > 0)) return `the graph has no size on screen (${b.width} x ${b.height})`;
    if (!(near(b.width, w, 1) && b.height <= h + 1) && !(near(b.height, h, 1) && b.width <= w + 1))
      return `graph drawn ${b.width.toFixed(1)} x ${b.height.toFixed(1)}, a fit fills 95 % of the ${W} x ${H} stage along one axis`;
    if (!near(b.left - s.left, (W - b.width) / 2, 1) || !near(b.top - s.top, (H - b.height) / 2, 1))
      return `graph at (${b.left.toFixed(1)}, ${b.top.toFixed(1)}), not centred in the ${W} x ${H} stage`;
    return null;
  };
  // The first view is a fit unless a fit shrinks the labels below the
  // readable size; then it is at that size with the start task on screen.
  const api = window.dfxDeps;
  const loaded = p.transform(svg), loadedPx = api.pxPerPoint(), view = api.firstView();
  p.fact('first_view', view);
  const start = [...svg.querySelectorAll('g.node')].find((g) => g.querySelector('title')?.textContent === startNode);
  const r = start && start.getBoundingClientRect(), st = stage.getBoundingClientRect();
  const startOnScreen = r && r.left >= st.left && r.right <= st.right && r.top >= st.top && r.bottom <= st.bottom;
  p.key('f');
  const fitPx = api.pxPerPoint();
  p.check(view === (fitPx < api.readable ? 'readable' : 'fit'),
          `first view ${view}, but a fit draws labels at ${fitPx} px per point (readable: ${api.readable})`);
  if (expect.first_view) p.check(view === expect.first_view, `first view ${view}, expected ${expect.first_view}`);
  if (view === 'readable') {
    p.check(near(loadedPx, api.readable, 1e-3 * api.readable), `first view at ${loadedPx} px per point, expected ${api.readable}`);
    p.check(startOnScreen, `the start task ${startNode} is not on screen in the first view`);
  } else {
    p.check(same(loaded, p.transform(svg)), `the first view ${show(loaded)} is not the fit f gives, ${show(p.transform(svg))}`);
  }
  const initial = p.transform(svg);
  p.fact('initial', initial);
  p.check(initial, `initial transform ${getComputedStyle(svg).transform}`);
  const bad = fitProblem();
  p.check(!bad, `the first view (or f after a readable one) is not a fit: ${bad}`);
  // The graph's size at scale 1, for the reset check.
  const natural = { w: svg.getBoundingClientRect().width / initial.scale, h: svg.getBoundingClientRect().height / initial.scale };
  p.fact('natural', natural);
  // Unless the fit differs from the reset view, f and r could not be told apart.
  p.check(!same(initial, { scale: 1, tx: 0, ty: 0 }), `the fit is the identity (${show(initial)}); the keys would prove nothing`);

  p.step('pan and zoom away');
  stage.dispatchEvent(new WheelEvent('wheel', { deltaY: -300, ctrlKey: true, clientX: 100, clientY: 80, bubbles: true, cancelable: true }));
  stage.dispatchEvent(new WheelEvent('wheel', { deltaX: 37, deltaY: 53, bubbles: true, cancelable: true }));
  const moved = p.transform(svg);
  p.fact('moved', moved);
  p.check(moved && !near(moved.scale, initial.scale, 1e-6) && !near(moved.tx, initial.tx, 1),
          `ctrl+wheel and wheel did not move the view: ${show(moved)}`);

  p.step('key r');
  p.key('r');
  const reset = p.transform(svg);
  p.fact('after_r', reset);
  p.check(same(reset, { scale: 1, tx: 0, ty: 0 }), `r should reset to scale 1 at the origin, got ${show(reset)}`);
  let b = svg.getBoundingClientRect();
  const s = stage.getBoundingClientRect();
  p.check(near(b.left, s.left, 0.5) && near(b.top, s.top, 0.5) && near(b.width, natural.w, 1) && near(b.height, natural.h, 1),
          `after r the graph is drawn at (${b.left}, ${b.top}) ${b.width} x ${b.height}, expected the origin at its natural ${natural.w} x ${natural.h}`);

  p.step('key f');
  p.key('f');
  const fitted = p.transform(svg);
  p.fact('after_f', fitted);
  p.check(same(fitted, initial), `f should fit as on load (${show(initial)}), got ${show(fitted)}`);
  const badF = fitProblem();
  p.check(!badF, `after f: ${badF}`);

  p.step('key r again');
  p.key('r');
  p.check(same(p.transform(svg), { scale: 1, tx: 0, ty: 0 }), `second r: ${show(p.transform(svg))}`);
  p.key('f');
  p.check(same(p.transform(svg), initial), `second f: ${show(p.transform(svg))}`);

  p.step('other keys');
  const before = p.transform(svg);
  p.key('x');
  p.check(same(p.transform(svg), before), `an unbound key moved the view from ${show(before)} to ${show(p.transform(svg))}`);

  p.step('click a task');
  // With run times, a task that has one (allocs and dummies do not).
  const node = expect.ran ? nodes.find((g) => depStats[g.querySelector('title')?.textContent]?.duration_us !== undefined) : nodes[0];
  const shape = node && node.querySelector('polygon, ellipse, path, text');
  const detail = document.getElementById('detail');
  if (shape && detail) {
    const id = node.querySelector('title')?.textContent;
    shape.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
    p.check(detail.classList.contains('open') && getComputedStyle(detail).display !== 'none',
            `clicking task ${id} did not open the detail panel`);
    p.check(node.classList.contains('selected'), `task ${id} not marked selected`);
    p.check(detail.textContent.includes('predecessors'), `detail panel text: ${JSON.stringify(detail.textContent.slice(0, 120))}`);
    if (expect.ran) {
      const s = depStats[id];
      const want = `ran ${s.duration_us.toFixed(3)} \u00b5s, from ${s.start_us.toFixed(3)} \u00b5s`;
      p.check(detail.textContent.includes(want), `panel of ${id} lacks ${JSON.stringify(want)}: ${JSON.stringify(detail.textContent)}`);
    }
    p.key('Escape');
    p.check(!detail.classList.contains('open') && getComputedStyle(detail).display === 'none', 'Escape did not close the panel');
  } else {
    p.check(false, 'no node shape or no #detail to click');
  }
});
