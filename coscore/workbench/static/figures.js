// The dataset view's figures, drawn as SVG (no library); t() gives the words, count() writes a count.

function svg(tag, attrs, children) {
    const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
    Object.keys(attrs || {}).forEach(function (name) {
        if (name === 'text') node.textContent = attrs[name];
        else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) { node.appendChild(child); });
    return node;
}

function short(n) {  // 4417 -> 4.4k: fits a cell
    if (n < 1000) return String(n);
    return n < 10000 ? (n / 1000).toFixed(1) + 'k' : Math.round(n / 1000) + 'k';
}

/** The confusion matrix (rows: marks, columns: scores) as an SVG heat map, counts in its cells. */
export function confusionFigure(matrix, t, count) {
    const cell = 26, left = 40, top = 30, size = matrix.length;
    const most = Math.max(1, Math.max.apply(null, matrix.map(function (row) { return Math.max.apply(null, row); })));
    const figure = svg('svg', {viewBox: '0 0 ' + (left + cell * size + 10) + ' ' + (top + cell * size + 10),
        role: 'img', 'aria-label': t('data.confusion')});
    figure.appendChild(svg('text', {x: left + cell * size / 2, y: 10, 'text-anchor': 'middle', text: t('axis.score') + ' →'}));
    figure.appendChild(svg('text', {x: 10, y: top + cell * size / 2, 'text-anchor': 'middle',
        transform: 'rotate(-90 10 ' + (top + cell * size / 2) + ')', text: t('axis.mark') + ' →'}));
    for (let i = 0; i < size; i++) {
        figure.appendChild(svg('text', {x: left + cell * i + cell / 2, y: top - 5, 'text-anchor': 'middle', text: String(i)}));
        figure.appendChild(svg('text', {x: left - 6, y: top + cell * i + cell / 2 + 3, 'text-anchor': 'end', text: String(i)}));
        for (let j = 0; j < size; j++) {
            const cellCount = matrix[i][j];
            const share = cellCount ? 0.12 + 0.88 * Math.log(1 + cellCount) / Math.log(1 + most) : 0;
            const rect = svg('rect', {x: left + cell * j, y: top + cell * i, width: cell - 1, height: cell - 1,
                fill: cellCount ? 'rgba(0,165,142,' + share.toFixed(3) + ')' : '#f4f6f8',
                stroke: i === j ? '#1f2933' : 'none', 'stroke-width': i === j ? 1 : 0});
            rect.appendChild(svg('title', {text: t('axis.mark') + ' ' + i + ', ' + t('axis.score') + ' ' + j + ': ' + count(cellCount)}));
            figure.appendChild(rect);
            if (cellCount) {
                figure.appendChild(svg('text', {x: left + cell * j + cell / 2, y: top + cell * i + cell / 2 + 3,
                    'text-anchor': 'middle', fill: share > 0.6 ? '#fff' : '#1f2933', text: short(cellCount)}));
            }
        }
    }
    return figure;
}

/** The distributions of marks (when there are) and scores on the 0-10 scale, as SVG bars. */
export function distributionFigure(d, t, count) {
    const series = [{values: d.scores, color: '#00a58e', name: t('legend.scores')}];
    if (d.marks) series.unshift({values: d.marks, color: '#7c8ea3', name: t('legend.marks')});
    const width = 360, height = 200, left = 36, bottom = 24, top = 24;
    const most = Math.max(1, Math.max.apply(null, series.map(function (s) { return Math.max.apply(null, s.values); })));
    const slot = (width - left - 10) / d.scale.length;
    const bar = (slot - 4) / series.length;
    const figure = svg('svg', {viewBox: '0 0 ' + width + ' ' + (height + top), role: 'img', 'aria-label': t('data.distributions')});
    [0, 0.5, 1].forEach(function (f) {
        const y = top + (height - bottom) * (1 - f);
        figure.appendChild(svg('line', {x1: left, x2: width - 10, y1: y, y2: y, stroke: '#d9dee3'}));
        figure.appendChild(svg('text', {x: left - 4, y: y + 3, 'text-anchor': 'end', text: count(Math.round(most * f))}));
    });
    d.scale.forEach(function (level, k) {
        series.forEach(function (s, m) {
            const h = (height - bottom) * s.values[k] / most;
            const rect = svg('rect', {x: left + slot * k + 2 + bar * m, y: top + height - bottom - h, width: Math.max(bar - 1, 1),
                height: h, fill: s.color});
            rect.appendChild(svg('title', {text: s.name + ' ' + level + ': ' + count(s.values[k])}));
            figure.appendChild(rect);
        });
        figure.appendChild(svg('text', {x: left + slot * k + slot / 2, y: top + height - bottom + 14, 'text-anchor': 'middle', text: String(level)}));
    });
    series.forEach(function (s, m) {
        figure.appendChild(svg('rect', {x: left + 8 + m * 130, y: 4, width: 10, height: 10, fill: s.color}));
        figure.appendChild(svg('text', {x: left + 22 + m * 130, y: 13, text: s.name}));
    });
    return figure;
}

