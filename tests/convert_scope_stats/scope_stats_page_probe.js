// The scope-stats report in a real browser (run by browser_test.py through
// tests/browser/chromium_page.py). The page has no script and no keys: the
// probe checks that it loads, that every panel's charts are drawn with sane
// coordinates, and reports the panels' structure for the driver to compare
// with the one it derives from the jsonl. Expectations: { title }.
dfxProbe.run(async (p, expect) => {
  p.step('load');
  p.check(document.title === expect.title, `title ${JSON.stringify(document.title)}, expected ${JSON.stringify(expect.title)}`);
  p.check(document.querySelectorAll('script').length === 3, 'the page brings a script of its own (it should have none)');
  const panels = [...document.querySelectorAll('main details')];
  p.check(panels.length > 0, 'no panel (<details>) in the page');
  const openAtLoad = panels.map((d) => d.open);
  // Closed panels draw nothing; open every one to measure it.
  for (const d of panels) d.open = true;
  await new Promise((resolve) => setTimeout(resolve, 20));

  p.step('panels');
  const report = [];
  panels.forEach((d, i) => {
    const summary = d.querySelector('summary')?.textContent.trim() ?? '';
    const where = `panel ${i + 1} (${summary.split(' · ').slice(0, 2).join(' · ')})`;
    const charts = [...d.querySelectorAll('svg.chart')];
    const aside = d.querySelector('aside');
    const entry = { summary, open_at_load: openAtLoad[i], charts: [] };
    for (const [c, svg] of charts.entries()) {
      const r = svg.getBoundingClientRect();
      const vb = svg.viewBox.baseVal;
      const lines = [...svg.querySelectorAll('polyline')].map((pl) => pl.points.numberOfItems);
      const dots = svg.querySelectorAll('circle:not(.peak)').length;
      const peaks = svg.querySelectorAll('circle.peak').length;
      // Every drawn coordinate must be a number inside the viewBox (NaN or
      // Infinity in an attribute makes the browser drop the point or shape).
      const outside = [];
      for (const pl of svg.querySelectorAll('polyline')) {
        const raw = pl.getAttribute('points').trim().split(/\s+/).filter(Boolean);
        if (raw.length !== pl.points.numberOfItems) outside.push(`polyline has ${raw.length} points in its attribute, browser parsed ${pl.points.numberOfItems}`);
        for (const pt of pl.points) if (!(pt.x >= 0 && pt.x <= vb.width && pt.y >= 0 && pt.y <= vb.height)) outside.push(`point (${pt.x}, ${pt.y})`);
      }
      for (const circle of svg.querySelectorAll('circle')) {
        const cx = circle.cx.baseVal.value, cy = circle.cy.baseVal.value;
        if (!(cx >= 0 && cx <= vb.width && cy >= 0 && cy <= vb.height)) outside.push(`circle at (${cx}, ${cy})`);
      }
      p.check(outside.length === 0, `${where}, chart ${c + 1}: ${outside.slice(0, 3).join('; ')}`);
      p.check(r.width > 200 && r.height > 50, `${where}, chart ${c + 1} drawn ${r.width} x ${r.height}`);
      p.check(Math.abs(r.width / r.height - vb.width / vb.height) < 0.05,
              `${where}, chart ${c + 1}: drawn ${r.width} x ${r.height}, viewBox ${vb.width} x ${vb.height} (distorted)`);
      if (aside) {
        const a = aside.getBoundingClientRect();
        p.check(r.right <= a.left + 1, `${where}, chart ${c + 1} overlaps the peak box (${r.right} > ${a.left})`);
      }
      p.check(dots === lines.reduce((s, n) => s + n, 0), `${where}, chart ${c + 1}: ${dots} dots for ${lines} points`);
      p.check(peaks === lines.length, `${where}, chart ${c + 1}: ${peaks} peak markers for ${lines.length} lines`);
      // Readable: a y axis named with its unit, each tick label once, a line
      // drawn over another dashed so that the one beneath shows through.
      const yLabel = svg.querySelector('text.y-label')?.textContent ?? '';
      p.check(/\b(slots|MiB|entries)\b/.test(yLabel), `${where}, chart ${c + 1}: y axis label ${JSON.stringify(yLabel)} names no unit`);
      const ticks = [...svg.querySelectorAll('text.tick[text-anchor="end"]')].map((t) => t.textContent);
      p.check(new Set(ticks).size === ticks.length, `${where}, chart ${c + 1}: y ticks ${JSON.stringify(ticks)} repeat`);
      const polylines = [...svg.querySelectorAll('polyline')];
      p.check(polylines.slice(1).every((pl) => pl.getAttribute('stroke-dasharray')),
              `${where}, chart ${c + 1}: a line drawn over another is solid`);
      // The first chart of a panel with a capacity shows it: a line, or a note that it is off scale.
      const capacity = aside && [...aside.querySelectorAll('dt')].find((dt) => dt.textContent === 'capacity')?.nextElementSibling?.textContent;
      if (c === 0 && capacity && capacity !== 'n/a')
        p.check((svg.querySelector('line.capacity') !== null) !== (svg.querySelector('.capacity-note') !== null),
                `${where}, chart 1: capacity ${capacity} neither drawn nor noted off scale (or both)`);
      entry.charts.push({ lines, width: Math.round(r.width), height: Math.round(r.height) });
    }
    p.check(aside && aside.getBoundingClientRect().width > 0, `${where}: no visible peak box`);
    report.push(entry);
  });
  p.fact('panels', report);

  p.step('peaks table');
  const rows = document.querySelectorAll('table tbody tr');
  p.check(rows.length === panels.length, `${rows.length} rows in the peaks table for ${panels.length} panels`);
  p.fact('viewport', [innerWidth, innerHeight]);
});
