// The checks of check_layout.mjs, run inside the page (page.evaluate serialises this one
// function, so it must not use anything from outside it). Returns the problems found, in words.
export function measurePage() {
  const problems = [];
  let checks = 0;
  const slack = 0.5;  // px: sub-pixel rounding is no overlap
  const describe = (text) => JSON.stringify(text.trim().replace(/\s+/g, ' ').slice(0, 60));
  const viewWidth = document.documentElement.clientWidth;

  // No sideways scrolling: the page is as wide as the window.
  ++checks;
  const pageWidth = document.documentElement.scrollWidth;
  if (pageWidth > viewWidth + slack) problems.push(`the page is ${pageWidth} px wide in a ${viewWidth} px window (horizontal scroll)`);

  // Every box of text on the page: SVG labels whole, HTML text line by line.
  const boxes = [];
  for (const text of document.querySelectorAll('svg text')) {
    if (!text.textContent.trim()) continue;
    const own = [...text.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => node.textContent).join('');
    boxes.push({ rect: text.getBoundingClientRect(), text: own || text.textContent, svg: text.closest('svg') });
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim() || node.parentElement.closest('svg, title, style, script')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const rect of range.getClientRects())
      if (rect.width > 0 && rect.height > 0) boxes.push({ rect, text: node.textContent, svg: null });
  }

  // Inside the window, and a chart's labels inside the chart (an SVG clips what is outside it).
  for (const box of boxes) {
    ++checks;
    const r = box.rect;
    if (r.left < -slack || r.right > viewWidth + slack) problems.push(`text ${describe(box.text)} is cut off by the window (x ${Math.round(r.left)}..${Math.round(r.right)})`);
    if (!box.svg) continue;
    const s = box.svg.getBoundingClientRect();
    if (r.left < s.left - slack || r.right > s.right + slack || r.top < s.top - slack || r.bottom > s.bottom + slack)
      problems.push(`label ${describe(box.text)} is clipped by chart #${box.svg.id} (by ${Math.round(Math.max(s.left - r.left, r.right - s.right, s.top - r.top, r.bottom - s.bottom))} px)`);
  }

  // No two text boxes overlap (sorted by top, each compared with those starting above its bottom).
  boxes.sort((a, b) => a.rect.top - b.rect.top);
  for (let i = 0; i < boxes.length; ++i) {
    const a = boxes[i].rect;
    for (let j = i + 1; j < boxes.length && boxes[j].rect.top < a.bottom - slack; ++j) {
      ++checks;
      const b = boxes[j].rect;
      const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (across > slack && down > slack) problems.push(`text ${describe(boxes[i].text)} overlaps ${describe(boxes[j].text)} (${Math.round(across)} x ${Math.round(down)} px)`);
    }
  }

  // No box whose content spills out of it sideways (a chart wider than its panel, a wide table).
  for (const element of document.body.querySelectorAll('*')) {
    if (element.closest('svg')) continue;
    const style = getComputedStyle(element);
    if (style.display === 'inline' || style.overflowX !== 'visible') continue;
    ++checks;
    if (element.scrollWidth > element.clientWidth + 1)
      problems.push(`<${element.tagName.toLowerCase()}${element.id ? '#' + element.id : ''}${element.className ? '.' + element.className : ''}> spills out: content ${element.scrollWidth} px in ${element.clientWidth} px`);
  }

  // Charts: names that tell bars and points apart, and no bar chart of nothing but zeros.
  let charts = 0;
  for (const svg of document.querySelectorAll('svg')) {
    ++charts;
    for (const selector of ['text.bar-label:not(.sub)', 'text.point-label']) {
      ++checks;
      const seen = new Map();
      for (const label of svg.querySelectorAll(selector)) {
        // The label's own text, not its tooltip (<title>).
        const text = [...label.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE)
          .map((node) => node.textContent).join('').trim();
        if (text === '') continue;
        if (seen.has(text)) problems.push(`chart #${svg.id}: two labels read ${describe(text)}`);
        seen.set(text, true);
      }
    }
    const bars = [...svg.querySelectorAll('rect.bar')];
    ++checks;
    if (bars.length > 0 && bars.every((bar) => bar.getBoundingClientRect().width <= 1.5))
      problems.push(`chart #${svg.id}: every one of its ${bars.length} bars is zero`);
  }
  return { problems: [...new Set(problems)], checks, texts: boxes.length, charts, pageWidth };
}
