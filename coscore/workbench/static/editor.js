// Editing that helps (docs/workbench.md, "Editing that helps"): line numbers beside the rule,
// the lines holding a diagnostic marked there (the place itself is underlined in the text by
// workbench.js's backdrop), results marked stale while the rule has errors, a disabled Save
// that says why, and a dataset whose columns do not fit the rule said so instead of figures.

export function installEditing(h) {
    const editor = h.editor;
    const box = editor.parentNode;                       // .editor: the backdrop and the textarea
    box.classList.add('numbered');
    const gutter = h.el('div', {className: 'gutter', 'aria-hidden': 'true', 'data-testid': 'line-numbers'});
    box.insertBefore(gutter, box.firstChild);

    const stale = h.el('div', {className: 'stale-note', 'data-testid': 'stale', role: 'status', hidden: 'hidden'});
    const datasetPanel = h.$('dataset-panel');
    datasetPanel.insertBefore(stale, datasetPanel.querySelector('h2').nextSibling);

    const why = h.el('span', {className: 'status bad save-why', 'data-testid': 'save-why'});
    const save = h.$('save-rule');
    save.parentNode.insertBefore(why, save.nextSibling);

    let lines = -1, marked = '';

    function fresh() { return h.state.check && h.state.checkedText === editor.value ? h.state.check : null; }

    function drawGutter() {
        const count = editor.value.split('\n').length;
        const check = fresh();
        const kinds = {};
        ((check && check.diagnostics) || []).forEach(function (d) {
            if (d.at && d.at.line && kinds[d.at.line] !== 'error') kinds[d.at.line] = d.severity;
        });
        const key = JSON.stringify(kinds);
        if (count !== lines || key !== marked) {
            h.clear(gutter);
            for (let i = 1; i <= count; i++) {
                gutter.appendChild(h.el('div', {className: kinds[i] || '', text: String(i)}));
            }
            lines = count;
            marked = key;
        }
        gutter.scrollTop = editor.scrollTop;
    }

    function drawStale() {
        const check = fresh();
        const shown = h.state.dataset || h.state.explanation;
        const isStale = !!(check && !check.ok && shown);
        stale.hidden = !isStale;
        stale.textContent = isStale ? h.t('stale') : '';
        h.$('dataset-panel').classList.toggle('is-stale', isStale);
        h.$('tester-panel').classList.toggle('is-stale', isStale);
    }

    function drawSaveWhy() {
        // the button's own title says why it is disabled (workbench.js); say it beside it too
        why.textContent = save.disabled && save.title ? h.t('save.why', {m: save.title}) : '';
        save.setAttribute('aria-describedby', 'save-status');
    }

    // The blanks the rule reads (coscore.Rule.blank_need) against the blanks the dataset's
    // answers have: no answer has the last blank read, or every answer has more than it reads.
    function misfit() {
        const check = fresh(), d = h.state.dataset;
        if (!check || !check.blank_need || !d || !d.blanks) return null;
        const need = check.blank_need, fewest = d.blanks.min, most = d.blanks.max;
        const reads = need.said || null;
        const lacking = need.count > 0 && most < need.count;
        const extra = !need.any_number && fewest > need.count;
        if (!lacking && !extra) return null;
        const params = fewest === most ? {have: fewest, reads: reads} : {fewest: fewest, most: most, reads: reads};
        return h.say(fewest === most ? 'bench.misfit_fewer' : 'bench.misfit_range', params);
    }

    function drawMisfit() {
        const agreement = h.$('agreement');
        const old = agreement.querySelector('[data-testid="misfit"]');
        if (old) old.remove();
        const text = misfit();
        agreement.classList.toggle('misfit', !!text);
        if (text) {
            agreement.insertBefore(h.el('div', {className: 'note misfit-note', 'data-testid': 'misfit', role: 'alert'}, [
                h.el('strong', {text: h.t('misfit.title')}), h.el('div', {text: text})
            ]), agreement.firstChild);
        }
    }

    editor.addEventListener('scroll', function () {
        gutter.scrollTop = editor.scrollTop;
        h.backdrop.scrollLeft = editor.scrollLeft;
    });
    editor.addEventListener('input', drawGutter);

    return {
        afterCheck: function () { drawGutter(); drawStale(); drawSaveWhy(); drawMisfit(); },
        afterDataset: function () { drawStale(); drawMisfit(); },
        afterExplain: drawStale,
        afterSaveButton: drawSaveWhy,
        afterLanguage: function () { drawStale(); drawSaveWhy(); drawMisfit(); }
    };
}
