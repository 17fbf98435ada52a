// Tune and suggest in the page (docs/workbench.md, "Tune and suggest"): both run on the
// editor's rule (its last version without errors) and the chosen dataset as background jobs
// of the server's workers (POST api/workbench/tune | suggest, then job until done; cancel
// stops one). Tune shows the figure before and after with intervals, the changes and the rule
// changed as a diff, and "apply" puts the changed rule in the editor as a new, unsaved
// version; suggest lists the phrases no atom covers and the answers scored furthest from
// their marks, and adds a phrase to an atom as an edit in the editor (undo takes it back).
import {sticky} from './i18n.js';

const METRICS = ['qwk', 'exact_agreement', 'adjacent_agreement', 'kappa', 'pearson_r', 'rmse', 'smd'];

export function installAssist(h) {
    const t = h.t, el = h.el, $ = h.$;
    const runs = {tune: {seq: 0, job: null, result: null}, suggest: {seq: 0, job: null, result: null}};

    // -- the panel ------------------------------------------------------------------------
    const metric = el('select', {id: 'tune-metric', 'data-testid': 'tune-metric'},
        METRICS.map(function (m) { return el('option', {value: m, 'data-fig': m}); }));
    const folds = el('input', {id: 'tune-folds', type: 'number', min: '2', max: '10', value: '5', 'data-testid': 'tune-folds'});
    const drop = el('input', {id: 'tune-drop', type: 'checkbox'});
    const tuneRun = el('button', {type: 'button', className: 'primary', 'data-testid': 'tune-run', 'data-i18n': 'tune.run'});
    const tuneCancel = el('button', {type: 'button', 'data-testid': 'tune-cancel', 'data-i18n': 'tune.cancel', hidden: 'hidden'});
    const tuneStatus = el('span', {className: 'status', 'data-testid': 'tune-status', 'aria-live': 'polite'});
    const tuneResult = el('div', {className: 'assist-result', 'data-testid': 'tune-result'});
    const suggestRun = el('button', {type: 'button', className: 'primary', 'data-testid': 'suggest-run', 'data-i18n': 'suggest.run'});
    const suggestCancel = el('button', {type: 'button', 'data-testid': 'suggest-cancel', 'data-i18n': 'tune.cancel', hidden: 'hidden'});
    const suggestStatus = el('span', {className: 'status', 'data-testid': 'suggest-status', 'aria-live': 'polite'});
    const suggestResult = el('div', {className: 'assist-result', 'data-testid': 'suggest-result'});
    const panel = el('section', {className: 'panel wide', id: 'assist-panel', 'aria-labelledby': 'assist-title'}, [
        el('h2', {id: 'assist-title', 'data-i18n': 'assist.title'}),
        el('div', {className: 'row'}, [
            el('label', {className: 'field'}, [el('span', {'data-i18n': 'tune.metric'}), metric]),
            el('label', {className: 'field'}, [el('span', {'data-i18n': 'tune.folds'}), folds]),
            el('label', {className: 'check'}, [drop, el('span', {'data-i18n': 'tune.drop'})]),
            tuneRun, tuneCancel, tuneStatus
        ]),
        tuneResult,
        el('div', {className: 'row'}, [suggestRun, suggestCancel, suggestStatus]),
        suggestResult
    ]);
    const datasetPanel = $('dataset-panel');
    datasetPanel.parentNode.insertBefore(panel, datasetPanel);  // above the dataset's long lists

    function names() {
        METRICS.forEach(function (m, i) { metric.options[i].textContent = t('fig.' + m); });
    }

    // -- running a job ----------------------------------------------------------------------
    function body(kind) {
        const dataset = $('dataset-select').value;
        const out = {dataset: dataset, rule: h.state.good};
        if (h.state.view) out.columns = h.state.view;  // an exam item's columns of the dataset (library.js)
        if (kind === 'tune') {
            out.metric = metric.value;
            out.folds = Math.max(2, Math.min(10, parseInt(folds.value, 10) || 5));
            out.drop = drop.checked;
        }
        return out;
    }

    async function run(kind, status, cancel, draw) {
        const me = runs[kind];
        const seq = ++me.seq;
        if (!$('dataset-select').value) { sticky(status, function () { return t('assist.needdata'); }, 'bad'); return; }
        if (!h.state.good || (h.state.check && h.state.checkedText === h.editor.value && !h.state.check.ok)) {
            sticky(status, function () { return t('assist.needrule'); }, 'bad');
            return;
        }
        const began = performance.now();
        const seconds = function () { return ((performance.now() - began) / 1000).toFixed(1); };
        cancel.hidden = false;
        sticky(status, function () { return t(kind + '.running', {s: seconds()}); });
        let reply = await h.api(kind, body(kind));
        while (reply.status === 202 && seq === me.seq) {
            me.job = reply.data.job;
            sticky(status, function () { return t(kind + '.running', {s: seconds()}); });
            await new Promise(function (resolve) { setTimeout(resolve, 250); });
            if (seq !== me.seq) return;
            reply = await h.api('job', {job: me.job});
        }
        if (seq !== me.seq) return;
        cancel.hidden = true;
        me.job = null;
        if (reply.status !== 200) {
            const data = reply.data;
            sticky(status, function () { return t(kind + '.failed', {m: h.msg(data)}); }, 'bad');
            return;
        }
        me.result = reply.data;
        draw();
    }

    async function stop(kind, status, cancel) {
        const me = runs[kind];
        const job = me.job;
        me.seq++;
        me.job = null;
        cancel.hidden = true;
        sticky(status, function () { return t('tune.cancelled'); });
        if (job) await h.api('cancel', {job: job});
    }

    // -- tune -------------------------------------------------------------------------------
    function estimate(name, e, signed) {
        const show = function (x) {
            if (x === null || x === undefined) return '—';
            return (signed && x > 0 ? '+' : '') + h.num(x, 3);
        };
        const parts = [el('div', {className: 'name', text: name}), el('div', {className: 'value', text: show(e && e.value)})];
        if (e && e.ci) parts.push(el('div', {className: 'ci', text: t('fig.ci', {lo: show(e.ci[0]), hi: show(e.ci[1])})}));
        return el('div', {className: 'figure'}, parts);
    }

    function changeLine(c) {
        const shown = function (v) {  // an OP/CS desc as its threshold: "0.2:…" (the diff below has it whole)
            if (typeof v !== 'string') return JSON.stringify(v);
            const colon = v.indexOf(':');
            return JSON.stringify(colon >= 0 && v.length > 40 ? v.slice(0, colon + 1) + '…' : v);
        };
        return c.after === null ? c.path + ': ' + t('tune.removed') : c.path + ': ' + shown(c.before) + ' → ' + shown(c.after);
    }

    function drawTune() {
        const r = runs.tune.result;
        h.clear(tuneResult);
        if (!r) return;
        sticky(tuneStatus, function () { return t('tune.done', {n: r.n, s: h.num(r.seconds, 2)}); }, 'good');
        const figure = t('fig.' + r.metric);
        tuneResult.appendChild(el('div', {className: 'agreement'}, [
            estimate(figure + ' · ' + t('tune.before'), r.before),
            estimate(figure + ' · ' + t('tune.after'), r.after),
            estimate(t('tune.gain'), r.improvement, true)
        ]));
        const reason = h.msg({message: r.reason, said: r.reason_said});
        const verdict = r.accepted ? t('tune.accepted') : r.proposed.length ? t('tune.rejected', {m: reason}) : t('tune.none', {m: reason});
        tuneResult.appendChild(el('p', {className: 'note ' + (r.accepted ? 'good' : ''), 'data-testid': 'tune-verdict', text: verdict}));
        if (!r.proposed.length) return;
        tuneResult.appendChild(el('h3', {text: t('tune.changes')}));
        tuneResult.appendChild(el('ul', {className: 'changes'}, r.proposed.map(function (c) {
            return el('li', {}, [el('code', {text: changeLine(c)})]);
        })));
        tuneResult.appendChild(el('h3', {text: t('tune.diff')}));
        tuneResult.appendChild(el('pre', {className: 'diff', 'data-testid': 'tune-diff'}, r.diff.map(function (d) {
            if (d.op === '…') return el('span', {className: 'skip', text: t('tune.skipped', {n: d.skipped}) + '\n'});
            const kind = d.op === '+' ? 'add' : d.op === '-' ? 'del' : 'same';
            return el('span', {className: kind, text: d.op + ' ' + d.line + '\n'});
        })));
        const apply = el('button', {type: 'button', className: 'primary', 'data-testid': 'tune-apply', text: t('tune.apply')});
        apply.addEventListener('click', function () {
            h.replaceEditor(r.text);
            h.unsaved('tune.applied');
        });
        tuneResult.appendChild(el('div', {className: 'row'}, [apply]));
    }

    tuneRun.addEventListener('click', function () { run('tune', tuneStatus, tuneCancel, drawTune); });
    tuneCancel.addEventListener('click', function () { stop('tune', tuneStatus, tuneCancel); });

    // -- suggest ----------------------------------------------------------------------------
    function targets() {  // where a phrase can go: each SM group, a new SM group, the keys of EM/OP/CS
        const out = [];
        (runs.suggest.result.atoms || []).forEach(function (a) {
            if (a.type === 'SM') {
                a.desc.split(',').forEach(function (group, g) {
                    out.push({value: a.id + '#' + g, text: t('suggest.group', {a: a.id, k: a.type, g: g + 1}) + ': ' + group});
                });
                out.push({value: a.id + '#new', text: t('suggest.newgroup', {a: a.id, k: a.type})});
            } else {
                out.push({value: a.id + '#keys', text: t('suggest.keys', {a: a.id, k: a.type})});
            }
        });
        return out;
    }

    function withPhrase(desc, type, where, phrase) {
        if (type === 'SM' && where !== 'new' && where !== 'keys') {
            const groups = desc.split(',');
            const g = parseInt(where, 10);
            groups[g] = groups[g] + '|' + phrase;
            return groups.join(',');
        }
        return desc + ',' + phrase;
    }

    function addPhrase(phrase, target) {
        const cut = target.lastIndexOf('#');          // ATOM#GROUP, ATOM#new, ATOM#keys (an atom id may hold '#')
        const parts = [target.slice(0, cut), target.slice(cut + 1)];
        let rule;
        try { rule = JSON.parse(h.editor.value); } catch (e) { return; }
        const atom = rule && rule.atoms && rule.atoms[parts[0]];
        if (!atom || typeof atom.desc !== 'string') return;
        const before = atom.desc;
        const after = withPhrase(before, atom.type, parts[1], phrase);
        h.editDesc(parts[0], before, after, rule);
        h.unsaved('suggest.added', {p: phrase, a: parts[0]});
    }

    function drawSuggest() {
        const r = runs.suggest.result;
        h.clear(suggestResult);
        if (!r) return;
        sticky(suggestStatus, function () { return t('suggest.done', {n: r.n}); }, 'good');
        const select = el('select', {'data-testid': 'suggest-target'}, targets().map(function (o) {
            return el('option', {value: o.value, text: o.text});
        }));
        suggestResult.appendChild(el('div', {className: 'row'}, [
            el('label', {className: 'field grow'}, [el('span', {text: t('suggest.target')}), select])]));
        suggestResult.appendChild(el('h3', {text: t('suggest.phrases')}));
        const phrases = r.phrases.filter(function (p) { return p.phrase.indexOf(',') < 0 && p.phrase.indexOf('|') < 0; });
        if (!phrases.length) suggestResult.appendChild(el('p', {className: 'note', text: t('suggest.none')}));
        suggestResult.appendChild(el('ul', {className: 'phrases', 'data-testid': 'suggest-phrases'}, phrases.map(function (p) {
            const add = el('button', {type: 'button', 'data-testid': 'suggest-add', 'data-phrase': p.phrase, text: t('suggest.add')});
            add.addEventListener('click', function () { addPhrase(p.phrase, select.value); });
            return el('li', {'data-phrase': p.phrase}, [
                add, ' ', el('strong', {className: 'phrase', text: p.phrase}), ' · ',
                el('span', {text: t(p.direction === 'high' ? 'suggest.high' : 'suggest.low')}), ' · ',
                el('span', {className: 'status', text: t('suggest.stats', {r: p.rows, h: p.high, l: p.low,
                    w: h.num(p.mean_mark_with, 2), o: h.num(p.mean_mark_without, 2), z: h.num(p.z, 2)})})
            ]);
        })));
        suggestResult.appendChild(el('h3', {text: t('suggest.missed')}));
        if (!r.groups.length) suggestResult.appendChild(el('p', {className: 'note', text: t('suggest.none')}));
        suggestResult.appendChild(el('ul', {className: 'missed', 'data-testid': 'suggest-missed'}, r.groups.map(function (g) {
            const head = t(g.direction === 'under' ? 'suggest.under' : 'suggest.over') + (g.shared ? ' · ' + t('suggest.shared', {s: g.shared}) : '');
            return el('li', {}, [el('div', {className: 'name', text: head}), el('ul', {}, g.answers.map(function (m) {
                const item = el('li', {tabindex: '0', className: 'answer', title: t('data.open'),
                    text: t('suggest.answer', {a: m.answer.join(' - '), m: h.num(m.mark, 2), s: h.num(m.score, 2)})});
                item.addEventListener('click', function () { h.openInTester(m.answer); });
                return item;
            }))]);
        })));
    }

    suggestRun.addEventListener('click', function () { run('suggest', suggestStatus, suggestCancel, drawSuggest); });
    suggestCancel.addEventListener('click', function () { stop('suggest', suggestStatus, suggestCancel); });

    return {
        afterLanguage: function () { names(); drawTune(); drawSuggest(); }
    };
}
