// The dfx compare page in a real browser (run by compare_browser_test.py
// through tests/browser/chromium_page.py). The page has no script: the probe
// checks that it loads with every panel (the heading with the count of
// significant changes, the change chart or its "nothing to chart" note, the
// --fail-if list when gates were given, the table), that the chart is drawn
// inside its viewBox with an axis label, ticks and a legend, and reports
// what the page shows for the driver to compare with the text output:
// the heading's count, the chart's bar labels, the table's cells, the
// --fail-if lines. Expectations: {}.
dfxProbe.run(async (p) => {
  p.step('load');
  p.check(document.title === 'dfx compare', `title ${JSON.stringify(document.title)}`);
  p.check(document.querySelectorAll('script').length === 3, 'the page brings a script of its own (it should have none)');
  const headings = [...document.querySelectorAll('h2')].map((h) => h.textContent.trim());
  p.fact('headings', headings);

  p.step('chart');
  const charts = [...document.querySelectorAll('svg.chart')];
  p.check(charts.length <= 1, `${charts.length} charts`);
  const bars = [];
  for (const svg of charts) {
    const r = svg.getBoundingClientRect();
    const vb = svg.viewBox.baseVal;
    p.check(r.width > 300 && r.height > 50, `chart drawn ${r.width} x ${r.height}`);
    const outside = [];
    for (const rect of svg.querySelectorAll('rect')) {
      const x = rect.x.baseVal.value, y = rect.y.baseVal.value, w = rect.width.baseVal.value, h = rect.height.baseVal.value;
      if (!(x >= 0 && x + w <= vb.width + 0.5 && y >= 0 && y + h <= vb.height + 0.5)) outside.push(`rect at (${x}, ${y}) ${w} x ${h}`);
    }
    p.check(outside.length === 0, `outside the viewBox: ${outside.slice(0, 3).join('; ')}`);
    p.check(svg.querySelectorAll('text.legend').length === 2, 'no legend (B higher / B lower)');
    const axisLabels = [...svg.querySelectorAll('text.label[text-anchor="middle"]')].map((t) => t.textContent);
    p.check(axisLabels.includes('relative change (%)'), `axis label ${axisLabels}`);
    const ticks = [...svg.querySelectorAll('text.tick')].map((t) => t.textContent);
    p.check(ticks.length >= 3 && new Set(ticks).size === ticks.length, `ticks ${ticks}`);
    p.check(!ticks.includes('-0%'), `a -0% tick: ${ticks}`);
    for (const rect of svg.querySelectorAll('rect.up, rect.down')) {
      if (!rect.querySelector('title')) continue;  // the legend's swatches
      const y = rect.y.baseVal.value;
      const label = [...svg.querySelectorAll('text.label[text-anchor="end"]')]
        .find((t) => Math.abs(Number(t.getAttribute('y')) - (y + 10)) < 0.6);
      p.check(label !== undefined, `a bar at y ${y} without its label`);
      bars.push({ label: label ? label.textContent : '', pct: rect.querySelector('title').textContent,
                  up: rect.classList.contains('up') });
    }
  }
  p.fact('bars', bars);
  p.fact('no_chart_note', [...document.querySelectorAll('p.muted')].some((e) => e.textContent.startsWith('No significant change')));

  p.step('table');
  const table = document.querySelector('table.cmp');
  p.check(table !== null, 'no table');
  const rows = table ? [...table.querySelectorAll('tr')] : [];
  p.fact('header', rows.length ? [...rows[0].querySelectorAll('th')].map((c) => c.textContent) : []);
  p.fact('rows', rows.slice(1).map((tr) => ({ cells: [...tr.querySelectorAll('td')].map((c) => c.textContent),
                                              cls: tr.className })));
  p.fact('fail_if', [...document.querySelectorAll('ul li')].map((li) => li.textContent));
});
