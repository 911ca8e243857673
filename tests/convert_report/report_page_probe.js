// The dfx report page in a real browser (run by browser_test.py through
// tests/browser/chromium_page.py). The page has no script: the probe checks
// that it loads, that every chart is drawn at its size with every coordinate
// inside its viewBox and has axis labels and a legend, and reports each
// section's findings and chart titles for the driver to compare with the
// JSON report. Expectations: {}.
dfxProbe.run(async (p) => {
  p.step('load');
  p.check(document.title === 'dfx report', `title ${JSON.stringify(document.title)}`);
  p.check(document.querySelectorAll('script').length === 3, 'the page brings a script of its own (it should have none)');
  const sections = [...document.querySelectorAll('section.unit')];
  p.check(sections.length > 0, 'no section');

  p.step('sections');
  const report = [];
  sections.forEach((s, i) => {
    const where = `section ${i + 1}`;
    const findings = [...s.querySelectorAll('ol.findings li')].map((li) => {
      const clone = li.cloneNode(true);
      clone.querySelector('.area')?.remove();
      clone.querySelector('.impact')?.remove();
      return clone.textContent.trim();
    });
    const charts = [];
    for (const svg of s.querySelectorAll('svg.chart')) {
      const title = svg.querySelector('text.title')?.textContent ?? '';
      const r = svg.getBoundingClientRect();
      const vb = svg.viewBox.baseVal;
      p.check(r.width > 300 && r.height > 100, `${where}, ${title}: drawn ${r.width} x ${r.height}`);
      const outside = [];
      for (const pl of svg.querySelectorAll('polyline'))
        for (const pt of pl.points) if (!(pt.x >= 0 && pt.x <= vb.width && pt.y >= 0 && pt.y <= vb.height)) outside.push(`(${pt.x}, ${pt.y})`);
      for (const rect of svg.querySelectorAll('rect')) {
        const x = rect.x.baseVal.value, y = rect.y.baseVal.value, h = rect.height.baseVal.value;
        if (!(x >= 0 && x <= vb.width && y >= 0 && y + h <= vb.height + 0.5)) outside.push(`rect at (${x}, ${y}) h ${h}`);
      }
      p.check(outside.length === 0, `${where}, ${title}: outside the viewBox: ${outside.slice(0, 3).join('; ')}`);
      const labels = svg.querySelectorAll('text.label').length;
      const legend = svg.querySelectorAll('text.legend').length;
      const axisTicks = (anchor) => [...svg.querySelectorAll(`text.tick[text-anchor="${anchor}"]`)].map((t) => t.textContent);
      p.check(labels === 2, `${where}, ${title}: ${labels} axis labels`);
      p.check(legend >= 1, `${where}, ${title}: no legend`);
      for (const [axis, ticks] of [['y', axisTicks('end')], ['x', axisTicks('middle')]]) {
        p.check(ticks.length >= 2, `${where}, ${title}: ${ticks.length} ${axis} ticks`);
        p.check(new Set(ticks).size === ticks.length, `${where}, ${title}: repeated ${axis} tick labels ${ticks}`);
        p.check(!ticks.includes('-0'), `${where}, ${title}: a -0 ${axis} tick`);
      }
      charts.push(title);
    }
    report.push({ label: s.querySelector('h2')?.firstChild?.textContent.trim() ?? '', findings, charts });
  });
  p.fact('sections', report);
});
