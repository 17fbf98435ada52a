// The rule workbench of `coscore app` (docs/workbench.md): plain JavaScript, no library.
// Every text from the server is put in the page as text (textContent), never as HTML.
import {WORDS} from './words.js';
import {confusionFigure, distributionFigure} from './figures.js';
import {MORE_WORDS} from './assist-words.js';
import {LIBRARY_WORDS} from './library-words.js';
import {loadMessages, message, rewrite, say, sticky} from './i18n.js';
import {installEditing} from './editor.js';
import {installAssist} from './assist.js';
import {installLibrary} from './library.js';

Object.keys(MORE_WORDS).forEach(function (l) { Object.assign(WORDS[l], MORE_WORDS[l]); });
Object.keys(LIBRARY_WORDS).forEach(function (l) { Object.assign(WORDS[l], LIBRARY_WORDS[l]); });

(function () {

    let lang = localStorage.getItem('lang') === 'EN' ? 'en' : 'zh';
    let editing = null, assist = null;  // editor.js and assist.js, once installed
    let library = null;  // library.js (files, exams, versions: coscore workbench alone), once installed

    function t(key, vars) {
        let text = (WORDS[lang][key] !== undefined ? WORDS[lang][key] : WORDS.en[key]) || key;
        const all = Object.assign({}, vars);
        Object.keys(vars || {}).forEach(function (name) {  // {es}: the plural ending of {e}
            if (typeof vars[name] === 'number') all[name + 's'] = vars[name] === 1 ? '' : 's';
            if (typeof vars[name] === 'number' && Number.isInteger(vars[name])) all[name] = count(vars[name]);
        });
        Object.keys(all).forEach(function (name) { text = text.split('{' + name + '}').join(String(all[name])); });
        return text;
    }

    // -- small helpers -------------------------------------------------------------------------
    const $ = function (id) { return document.getElementById(id); };

    function el(tag, attrs, children) {
        const node = document.createElement(tag);
        Object.keys(attrs || {}).forEach(function (name) {
            if (name === 'text') node.textContent = attrs[name];
            else if (name === 'className') node.className = attrs[name];
            else node.setAttribute(name, attrs[name]);
        });
        (children || []).forEach(function (child) {
            node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
        });
        return node;
    }

    function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

    function num(x, digits) {
        if (x === null || x === undefined) return '—';
        if (typeof x === 'boolean') return String(x);
        if (Number.isInteger(x)) return String(x);
        return x.toFixed(digits === undefined ? 3 : digits).replace(/0+$/, '').replace(/\.$/, '');
    }

    function count(n) { return n.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-US'); }

    function either(values) {  // "0, 1 or 2"
        return values.length < 2 ? values.join('') : values.slice(0, -1).join(t('list.sep')) + t('or') + values[values.length - 1];
    }

    function pct(x) { return x === null || x === undefined ? '—' : (x * 100).toFixed(1) + ' %'; }

    function debounce(fn, ms) {
        let timer = null;
        return function () { clearTimeout(timer); timer = setTimeout(fn, ms); };
    }

    function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

    async function api(name, body) {
        try {
            const response = await fetch('api/workbench/' + name, {
                method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body || {})
            });
            let data;
            try { data = await response.json(); } catch (e) { data = {error: response.statusText || 'no answer'}; }
            return {status: response.status, data: data};
        } catch (e) {
            return {status: 0, data: {error: String(e && e.message || e)}};
        }
    }

    function setStatus(node, text, kind) {  // text: a string, or a function of the language (kept: see i18n.js)
        sticky(node, text, kind);
    }

    function msg(item) { return message(item, lang); }  // a server's message (its catalog id) in the page's language

    // -- the page's state ----------------------------------------------------------------------
    const state = {
        rules: [], datasets: [],
        check: null, checkedText: null, checkSeq: 0,
        compiling: null,      // the last rule text that compiles (the tester uses it)
        good: null,           // the last rule text without errors (the dataset view uses it)
        chosen: -1,           // the diagnostic picked in the list
        explainSeq: 0, explanation: null,
        datasetSeq: 0, dataset: null, lists: {}, datasetBlanks: null
    };

    // -- the rule editor -----------------------------------------------------------------------
    const editor = $('rule-editor');
    const backdrop = $('editor-backdrop');
    const NEW_RULE = JSON.stringify({
        atoms: {'0': {type: 'SM', desc: '前进,障碍|车辆|行人'}},
        combos: {A: {combo: 'M(0, T(0))', score: 5, mode: 'value'}},
        comboMode: 'ADD'
    }, null, 2);

    function drawBackdrop() {
        clear(backdrop);
        const text = editor.value;
        const marks = [];
        ((state.check && state.checkedText === text && state.check.diagnostics) || []).forEach(function (d, i) {
            if (d.at) marks.push({start: d.at.start, end: Math.max(d.at.end, d.at.start + 1), kind: d.severity, i: i});
        });
        marks.sort(function (a, b) { return a.start - b.start || (a.kind === 'error' ? -1 : 1); });
        let at = 0;
        marks.forEach(function (m) {
            if (m.start < at) return;  // overlapping: the first wins
            backdrop.appendChild(document.createTextNode(text.slice(at, m.start)));
            backdrop.appendChild(el('mark', {className: m.kind + (m.i === state.chosen ? ' chosen' : ''),
                text: text.slice(m.start, m.end) || ' '}));
            at = Math.min(Math.max(m.end, m.start), text.length);
        });
        backdrop.appendChild(document.createTextNode(text.slice(at) + '\n'));
        backdrop.scrollTop = editor.scrollTop;
    }

    function caretLines(source, column) {
        const offset = column - 1;
        const start = source.lastIndexOf('\n', offset - 1) + 1;
        let end = source.indexOf('\n', offset);
        if (end < 0) end = source.length;
        return source.slice(start, end) + '\n' + ' '.repeat(Math.max(0, offset - start)) + '^';
    }

    function drawDiagnostics() {
        const list = clear($('diagnostics'));
        const check = state.check;
        if (!check || state.checkedText !== editor.value) return;
        check.diagnostics.forEach(function (d, i) {
            let where = d.path + (d.column !== null && d.column !== undefined ? ', ' + t('diag.column', {c: d.column}) : '');
            if (d.at) where += ' (' + d.at.line + ':' + d.at.column + ')';
            const item = el('li', {className: d.severity, tabindex: '0', 'data-path': d.path}, [
                el('span', {className: 'where', text: t('diag.' + d.severity) + ' · ' + where}), ': ' + msg(d)
            ]);
            if (d.source && d.column) item.appendChild(el('pre', {text: caretLines(d.source, d.column)}));
            const pick = function () { chooseDiagnostic(i); };
            item.addEventListener('click', pick);
            item.addEventListener('keydown', function (e) { if (e.key === 'Enter') pick(); });
            list.appendChild(item);
        });
    }

    function chooseDiagnostic(i) {
        const d = state.check.diagnostics[i];
        state.chosen = i;
        drawBackdrop();
        if (d.at) {
            editor.focus();
            editor.setSelectionRange(d.at.start, Math.max(d.at.end, d.at.start));
        }
    }

    function comboLine(c) {
        const how = c.mode === 'value' ? t('combo.value', {s: num(c.score)}) : t('combo.logic', {s: num(c.score)});
        const lo = c.contribution.min, hi = c.contribution.max;
        let gives;
        if (lo !== null && lo === hi) gives = t('combo.always', {v: num(lo)});
        else if (c.values && c.values.length > 1 && c.values.length <= 6) gives = t('combo.gives', {v: either(c.values.map(function (v) { return num(v); }))});
        else if (lo !== null && hi !== null) gives = t('combo.range', {lo: num(lo), hi: num(hi)});
        else if (lo !== null) gives = t('combo.atleast', {v: num(lo)});
        else if (hi !== null) gives = t('combo.atmost', {v: num(hi)});
        else gives = t('combo.any');
        const kind = c.type.split('|').map(function (k) { return t('type.' + k); }).join('|');
        return t('combo.word') + ' ' + c.id + ' (' + how + '): ' + kind + ', ' + gives;
    }

    function drawRange() {
        const box = clear($('score-range'));
        const check = state.check;
        if (!check || state.checkedText !== editor.value || !check.compiles) return;
        const range = check.score_range;
        let total = range === null ? t('range.none')
            : t(range.exact ? 'range.exactly' : 'range.within', {lo: num(range.min), hi: num(range.max)});
        if (check.blanks_needed) total += '; ' + t('range.blanks', {n: check.blanks_needed});
        if (check.reads_all_blanks) total += '; ' + t('range.all');
        box.appendChild(el('div', {className: 'total', text: total}));
        if (range !== null) {
            box.appendChild(el('ul', {}, check.combos.map(function (c) { return el('li', {text: comboLine(c)}); })));
        }
    }

    function drawSaveButton() {
        const button = $('save-rule');
        const fresh = state.check && state.checkedText === editor.value;
        button.disabled = !fresh || !state.check.ok || !$('rule-name').value.trim();
        button.title = !fresh ? t('save.stale') : !state.check.ok ? t('save.errors')
            : !$('rule-name').value.trim() ? t('save.noname') : '';
        if (editing) editing.afterSaveButton();
    }

    function drawCheck() {
        drawBackdrop();
        drawDiagnostics();
        drawRange();
        drawSaveButton();
        if (editing) editing.afterCheck();  // line numbers, stale results, the columns that do not fit (editor.js)
        const check = state.check;
        if (!check || state.checkedText !== editor.value) return;
        if (check.errors || check.warnings) {
            setStatus($('check-status'), function () { return t('check.problems', {e: check.errors, w: check.warnings}); }, check.errors ? 'bad' : '');
        } else {
            setStatus($('check-status'), function () { return t('check.ok'); }, 'good');
        }
    }

    async function runCheck() {
        const text = editor.value;
        const seq = ++state.checkSeq;
        if (!text.trim()) {
            state.check = null;
            setStatus($('check-status'), function () { return t('check.empty'); });
            drawCheck();
            return;
        }
        setStatus($('check-status'), function () { return t('check.checking'); });
        const reply = await api('check', {rule: text, blanks: state.datasetBlanks});
        if (seq !== state.checkSeq) return;  // the author typed on: a newer check is coming
        if (reply.status !== 200) {
            setStatus($('check-status'), function () { return t('check.failed', {m: msg(reply.data)}); }, 'bad');
            return;
        }
        state.check = reply.data;
        state.checkedText = text;
        state.chosen = -1;
        const before = {compiling: state.compiling, good: state.good};
        if (reply.data.compiles) state.compiling = text;
        if (reply.data.ok) state.good = text;
        if (reply.data.blanks_needed && answerFields().length < reply.data.blanks_needed) {
            setBlankCount(Math.min(reply.data.blanks_needed, 20));
        }
        drawCheck();
        if (state.compiling !== before.compiling) scheduleExplain();
        if (state.good !== before.good && $('dataset-select').value) scheduleDataset();
    }

    const scheduleCheck = debounce(runCheck, 250);

    editor.addEventListener('input', function () {
        drawBackdrop();
        drawDiagnostics();
        drawRange();
        drawSaveButton();
        setStatus($('check-status'), function () { return t('check.checking'); });
        scheduleCheck();
    });
    editor.addEventListener('scroll', function () { backdrop.scrollTop = editor.scrollTop; });
    $('rule-name').addEventListener('input', drawSaveButton);

    $('format-rule').addEventListener('click', function () {
        try {
            editor.value = JSON.stringify(JSON.parse(editor.value), null, 2);
        } catch (e) {
            return;  // not JSON yet: the diagnostics say where
        }
        editor.dispatchEvent(new Event('input'));
    });

    function pretty(text) {
        try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
    }

    $('rule-select').addEventListener('change', function () {
        const name = this.value;
        const rule = state.rules.find(function (r) { return r.name === name; });
        $('rule-name').value = rule ? rule.name : '';
        $('rule-prompt').value = rule ? (rule.prompt || '') : '';
        editor.value = rule ? pretty(rule.rule) : NEW_RULE;
        editor.dispatchEvent(new Event('input'));
    });

    $('save-rule').addEventListener('click', async function () {
        const name = $('rule-name').value.trim();
        if (!name) { setStatus($('save-status'), function () { return t('save.noname'); }, 'bad'); return; }
        if (!state.check || !state.check.ok) { setStatus($('save-status'), function () { return t('save.errors'); }, 'bad'); return; }
        setStatus($('save-status'), function () { return t('save.saving'); });
        const reply = await api('save', {name: name, prompt: $('rule-prompt').value, rule: editor.value});
        if (reply.status === 200) {
            setStatus($('save-status'), function () { return t('save.done', {n: name}); }, 'good');
            await loadCatalog(name);
        } else {
            setStatus($('save-status'), function () { return t('save.failed', {m: msg(reply.data)}); }, 'bad');
        }
    });

    // -- the answer tester ---------------------------------------------------------------------
    function answerFields() { return Array.prototype.slice.call($('answer-fields').querySelectorAll('textarea')); }

    function setBlankCount(wanted) {
        const box = $('answer-fields');
        let fields = answerFields();
        while (fields.length < wanted) {
            const n = fields.length + 1;
            const field = el('textarea', {rows: '2', 'data-testid': 'answer-input', 'aria-label': t('tester.blank', {n: n}),
                placeholder: t('tester.blank', {n: n})});
            field.addEventListener('input', scheduleExplain);
            box.appendChild(field);
            fields = answerFields();
        }
        while (fields.length > Math.max(wanted, 1)) {
            box.removeChild(fields.pop());
        }
    }

    $('add-blank').addEventListener('click', function () { setBlankCount(answerFields().length + 1); scheduleExplain(); });
    $('remove-blank').addEventListener('click', function () { setBlankCount(answerFields().length - 1); scheduleExplain(); });

    async function runExplain() {
        const seq = ++state.explainSeq;
        const blanks = answerFields().map(function (f) { return f.value; });
        if (!state.compiling) {
            setStatus($('score-note'), function () { return t('tester.norule'); }, 'bad');
            return;
        }
        if (!blanks.some(function (b) { return b.length; })) {
            state.explanation = null;
            drawExplanation();
            return;
        }
        setStatus($('score-note'), function () { return t('tester.working'); });
        const reply = await api('explain', {rule: state.compiling, answer: blanks});
        if (seq !== state.explainSeq) return;
        if (reply.status !== 200) {
            state.explanation = null;
            drawExplanation();
            setStatus($('score-note'), function () { return t('tester.error', {m: msg(reply.data)}); }, 'bad');
            return;
        }
        state.explanation = reply.data;
        drawExplanation();
    }

    const scheduleExplain = debounce(runExplain, 200);

    function marked(segments) {
        return segments.map(function (s) {
            if (s.mark === 'hit') return el('mark', {className: 'hit', text: s.text});
            if (s.mark) return el('s', {className: s.mark, text: s.text, title: t('ev.' + s.mark)});
            return document.createTextNode(s.text);
        });
    }

    function callDetail(call) {
        const d = call.detail;
        const out = [];
        if (d.type === 'EMEvidence') {
            out.push(el('div', {text: d.matched !== null ? t('ev.em', {k: d.matched}) : t('ev.emnone')}));
        } else if (d.type === 'SMEvidence') {
            d.groups.forEach(function (g, i) {
                const steps = g.steps.map(function (s) {
                    const word = {counted: 'ev.counted', excluded: 'ev.excluded', removed: 'ev.removed', absent: 'ev.absent',
                        empty: 'ev.empty', 'not reached': 'ev.unreached'}[s.action] || s.action;
                    return (s.option || '∅') + ' ' + t(word);
                }).join(' · ');
                out.push(el('div', {className: g.counted ? 'hit-word' : '', text: t('ev.sm', {g: i + 1, s: steps})}));
            });
        } else if (d.best) {
            out.push(el('div', {text: t('ev.best', {k: d.best.key, n: d.best.numerator, d: d.best.denominator,
                s: num(d.best.similarity), t: num(d.threshold)})}));
            if (d.key_segments) out.push(el('div', {}, [t('ev.key')].concat(marked(d.key_segments))));
            if (d.type === 'OPEvidence' && !d.aligned) out.push(el('div', {text: t('ev.unaligned')}));
        } else {
            out.push(el('div', {text: t('ev.nokeys')}));
        }
        return el('div', {className: 'detail'}, out);
    }

    function drawExplanation() {
        const x = state.explanation;
        const table = clear($('combo-values'));
        const box = clear($('explanation'));
        if (!x) {
            $('score').textContent = '—';
            setStatus($('score-note'), '');
            return;
        }
        $('score').textContent = x.error ? '—' : num(x.score);
        setStatus($('score-note'), function () { return x.error ? t('tester.error', {m: msg({message: x.error, said: x.error_said})}) : ''; }, x.error ? 'bad' : '');
        table.appendChild(el('thead', {}, [el('tr', {}, [
            el('th', {text: t('tester.combo')}), el('th', {text: t('tester.expression')}),
            el('th', {className: 'number', text: t('tester.exprvalue')}), el('th', {className: 'number', text: t('tester.contribution')}),
            el('th', {text: t('tester.calls')})
        ])]));
        table.appendChild(el('tbody', {}, x.combos.map(function (c) {
            const value = c.expression_error !== null ? t('tester.error', {m: msg({message: c.expression_error, said: c.expression_error_said})})
                : (typeof c.expression_value === 'string' ? JSON.stringify(c.expression_value) : num(c.expression_value));
            return el('tr', {'data-combo': c.id}, [
                el('td', {text: c.id}), el('td', {}, [el('code', {text: c.expression || ''})]),
                el('td', {className: 'number', text: value}), el('td', {className: 'number', text: num(c.contribution)}),
                el('td', {text: c.calls.map(function (n, i) { return '[' + n + '] ' + c.ops[i]; }).join(', ')})
            ]);
        })));
        if (!x.calls.length) box.appendChild(el('p', {className: 'status', text: t('tester.none')}));
        x.calls.forEach(function (call) {
            const head = '[' + call.number + '] ' + call.op + '(' + call.atom + ') ' + call.kind + ' · '
                + t(call.hit ? 'hit' : 'miss') + ' · ' + num(call.value);
            const text = el('div', {className: 'text'}, marked(call.segments));
            const parts = [el('div', {className: 'head', text: head}), text];
            const shown = call.segments.reduce(function (n, s) { return n + s.text.length; }, 0);
            if (call.text_length > shown) parts.push(el('div', {className: 'status', text: t('tester.cut', {n: call.text_length})}));
            parts.push(callDetail(call));
            box.appendChild(el('div', {className: 'call' + (call.hit ? '' : ' miss'), 'data-atom': call.atom}, parts));
        });
        if (x.calls_omitted) box.appendChild(el('p', {className: 'status', text: t('tester.omitted', {n: x.calls_omitted})}));
        if (editing) editing.afterExplain();
    }

    function openInTester(blanks) {
        setBlankCount(blanks.length);
        answerFields().forEach(function (field, i) { field.value = blanks[i] || ''; });
        const panel = $('tester-panel');
        panel.scrollIntoView({block: 'start'});
        panel.classList.remove('flash');
        void panel.offsetWidth;  // restart the animation
        panel.classList.add('flash');
        runExplain();
    }

    // -- the dataset view ----------------------------------------------------------------------
    const PAGE = 20;

    function drawConfusion(matrix) {
        const box = clear($('confusion'));
        if (matrix) box.appendChild(confusionFigure(matrix, t, count));
    }

    function drawDistributions(d) {
        const box = clear($('distributions'));
        if (d) box.appendChild(distributionFigure(d, t, count));
    }

    function figureBox(name, estimate, format, verdict) {
        const parts = [el('div', {className: 'name', text: t('fig.' + name)}),
            el('div', {className: 'value', text: format(estimate.value)})];
        if (estimate.ci) parts.push(el('div', {className: 'ci', text: t('fig.ci', {lo: format(estimate.ci[0]), hi: format(estimate.ci[1])})}));
        const kind = verdict === true ? ' ok' : verdict === false ? ' low' : '';
        return el('div', {className: 'figure' + kind, 'data-figure': name}, parts);
    }

    function drawAgreement() {
        const box = clear($('agreement'));
        const d = state.dataset;
        if (!d) return;
        const a = d.agreement;
        if (!d.labelled) {
            box.appendChild(el('p', {className: 'note', text: t('data.unlabelled')}));
        } else if (!a) {
            box.appendChild(el('p', {className: 'note', text: t('data.nomarks')}));
        } else {
            const three = function (x) { return num(x, 3); };
            box.appendChild(figureBox('qwk', a.qwk, three, a.qwk_ok));
            box.appendChild(figureBox('exact_agreement', a.exact_agreement, pct));
            box.appendChild(figureBox('adjacent_agreement', a.adjacent_agreement, pct));
            box.appendChild(figureBox('kappa', a.kappa, three));
            box.appendChild(figureBox('pearson_r', a.pearson_r, three));
            box.appendChild(figureBox('smd', a.smd, three, a.smd_ok));
            box.appendChild(figureBox('rmse', a.rmse, three));
            box.appendChild(figureBox('mean_human', a.mean_human, function (x) { return num(x, 2); }));
            box.appendChild(figureBox('mean_pred', a.mean_pred, function (x) { return num(x, 2); }));
            box.appendChild(figureBox('n', {value: a.n, ci: null}, count));
            box.appendChild(el('p', {className: 'note', text: t('fig.note', {r: d.bootstrap.resamples, s: String(d.bootstrap.seed)})}));
        }
        if (d.failed) box.appendChild(el('p', {className: 'note failed', text: t('data.failedrows', {n: d.failed})}));
    }

    function rowError(row) { return msg({message: row.error, said: row.error_said}); }

    function rowFor(which, row) {
        const text = row.answer.join(' - ') + (row.cut ? ' …' : '');  // cut to the page's budget of bytes
        const cells = [el('td', {className: 'number', text: count(row.row)}),
            el('td', {className: 'answer', text: text})];
        if (which === 'disagreements') {
            cells.push(el('td', {className: 'number', text: num(row.mark, 2)}));
            cells.push(el('td', {className: 'number' + (row.error ? ' failed' : ''), text: row.error ? rowError(row) : num(row.score, 2),
                title: row.error ? rowError(row) : ''}));
            cells.push(el('td', {className: 'number', text: num(row.gap, 2)}));
        } else {
            cells.push(el('td', {className: 'number', text: count(row.count)}));
            cells.push(el('td', {className: 'number' + (row.error ? ' failed' : ''), text: row.error ? rowError(row) : num(row.score, 2)}));
            cells.push(el('td', {className: 'number', text: num(row.mean_mark, 2)}));
        }
        const tr = el('tr', {tabindex: '0', title: t('data.open'), 'data-row': String(row.row)}, cells);
        const open = function () {
            if (row.cut) wholeAnswer(which, row).then(openInTester);
            else openInTester(row.answer);
        };
        tr.addEventListener('click', open);
        tr.addEventListener('keydown', function (e) { if (e.key === 'Enter') open(); });
        return tr;
    }

    // A row whose answer was cut to the page's budget of bytes (row.cut): asked for alone, whole.
    async function wholeAnswer(which, row) {
        const d = state.dataset;
        if (!d) return row.answer;
        const reply = await api('rows', {dataset: d.dataset, rule: d.rule, list: which, page: row.position, size: 1,
            columns: d.view || undefined});
        const whole = reply.status === 200 && reply.data.rows && reply.data.rows[0];
        return whole ? whole.answer : row.answer;
    }

    function drawList(which) {
        const list = state.lists[which];
        const body = clear($(which));
        const pager = clear($(which + '-pager'));
        if (!list) return;
        list.rows.forEach(function (row) { body.appendChild(rowFor(which, row)); });
        if (!list.total) { pager.appendChild(el('span', {text: t('pager.none')})); return; }
        const prev = el('button', {type: 'button', text: t('pager.prev')});
        const next = el('button', {type: 'button', text: t('pager.next')});
        prev.disabled = list.page <= 0;
        next.disabled = list.page >= list.pages - 1;
        prev.addEventListener('click', function () { turnPage(which, list.page - 1); });
        next.addEventListener('click', function () { turnPage(which, list.page + 1); });
        pager.appendChild(prev);
        pager.appendChild(el('span', {text: t('pager.of', {p: list.page + 1, n: list.pages, t: list.total})}));
        pager.appendChild(next);
    }

    async function turnPage(which, page) {
        const d = state.dataset;
        if (!d) return;
        const seq = state.datasetSeq;
        for (;;) {
            const reply = await api('rows', {dataset: d.dataset, rule: d.rule, list: which, page: page, size: PAGE,
                columns: d.view || undefined});
            if (seq !== state.datasetSeq) return;
            if (reply.status === 202) { await sleep(200); continue; }
            if (reply.status !== 200) { setStatus($('dataset-status'), function () { return t('data.failed', {m: msg(reply.data)}); }, 'bad'); return; }
            state.lists[which] = reply.data;
            drawList(which);
            return;
        }
    }

    function drawDataset() {
        drawAgreement();
        const d = state.dataset;
        drawConfusion(d && d.agreement ? d.agreement.confusion : null);
        drawDistributions(d ? d.distributions : null);
        drawList('disagreements');
        drawList('distinct');
        if (editing) editing.afterDataset();
    }

    async function runDataset() {
        const name = $('dataset-select').value;
        const seq = ++state.datasetSeq;
        if (!name) {
            state.dataset = null;
            state.lists = {};
            setStatus($('dataset-status'), '');
            drawDataset();
            return;
        }
        const rule = state.good;
        if (!rule) { setStatus($('dataset-status'), function () { return t('data.norule'); }, 'bad'); return; }
        const began = performance.now();
        $('agreement').removeAttribute('data-ms');
        for (;;) {
            const reply = await api('dataset', {dataset: name, rule: rule, size: PAGE, columns: state.view || undefined});
            if (seq !== state.datasetSeq) return;
            if (reply.status === 202) {
                setStatus($('dataset-status'), function () { return t('data.scoring', {s: ((performance.now() - began) / 1000).toFixed(1)}); });
                await sleep(100);
                if (seq !== state.datasetSeq) return;
                continue;
            }
            if (reply.status !== 200) {
                setStatus($('dataset-status'), function () { return t('data.failed', {m: msg(reply.data)}); }, 'bad');
                return;
            }
            state.dataset = Object.assign({rule: rule, view: state.view}, reply.data);
            state.lists = {disagreements: reply.data.disagreements, distinct: reply.data.distinct};
            const blanks = reply.data.blanks ? [reply.data.blanks.min, reply.data.blanks.max] : null;
            if (JSON.stringify(blanks) !== JSON.stringify(state.datasetBlanks)) {
                state.datasetBlanks = blanks;  // check the rule against the blanks this data has
                scheduleCheck();
            }
            drawDataset();
            const ms = performance.now() - began;
            $('agreement').setAttribute('data-ms', ms.toFixed(0));
            setStatus($('dataset-status'), function () { return t('data.done', {n: reply.data.answers, t: (ms / 1000).toFixed(2), w: num(reply.data.seconds, 2)})
                + leftOut(reply.data.left_out); }, 'good');
            return;
        }
    }

    // The rows whose mark is empty or not a number (缺考, -), left out of the agreement and counted.
    function leftOut(left) {
        if (!left || !left.rows) return '';
        const values = Object.keys(left.values).map(function (v) { return (v || t('data.empty')) + ' ×' + left.values[v]; });
        return ' · ' + t('data.leftout', {n: left.rows, v: values.join(', ')});
    }

    const scheduleDataset = debounce(runDataset, 600);
    $('dataset-select').addEventListener('change', function () { state.datasetBlanks = null; state.view = null; runDataset(); });

    // -- the stored rules and datasets -----------------------------------------------------------
    async function loadCatalog(chosenRule) {
        const reply = await api('catalog', {});
        if (reply.status !== 200) { setStatus($('check-status'), function () { return t('check.failed', {m: msg(reply.data)}); }, 'bad'); return; }
        state.rules = reply.data.rules;
        state.datasets = reply.data.datasets;
        const rules = clear($('rule-select'));
        rules.appendChild(el('option', {value: '', text: t('editor.new')}));
        state.rules.forEach(function (r) { rules.appendChild(el('option', {value: r.name, text: r.name})); });
        rules.value = chosenRule || '';
        const sets = $('dataset-select');
        const kept = sets.value;
        clear(sets);
        sets.appendChild(el('option', {value: '', text: t('data.choose')}));
        state.datasets.forEach(function (d) {
            sets.appendChild(el('option', {value: d.name, text: d.name, title: (d.desc || '') + ' · ' + t('data.items', {n: d.count})}));
        });
        sets.value = state.datasets.some(function (d) { return d.name === kept; }) ? kept : '';
        if (library) library.afterCatalog(reply.data);
    }

    // -- language ----------------------------------------------------------------------------------
    function applyLanguage() {
        document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
        document.title = 'CoScore · ' + t('title');
        document.querySelectorAll('[data-i18n]').forEach(function (node) { node.textContent = t(node.getAttribute('data-i18n')); });
        $('language').textContent = t('language');
        answerFields().forEach(function (field, i) {
            field.placeholder = t('tester.blank', {n: i + 1});
            field.setAttribute('aria-label', t('tester.blank', {n: i + 1}));
        });
        const options = $('rule-select').options;
        if (options.length) options[0].textContent = t('editor.new');
        const sets = $('dataset-select').options;
        if (sets.length) sets[0].textContent = t('data.choose');
        drawCheck();
        drawExplanation();
        drawDataset();
        rewrite();  // the statuses, in the new language (i18n.js)
        if (editing) editing.afterLanguage();
        if (assist) assist.afterLanguage();
        if (library) library.afterLanguage();
    }

    $('language').addEventListener('click', function () {
        lang = lang === 'zh' ? 'en' : 'zh';
        localStorage.setItem('lang', lang === 'zh' ? '中文' : 'EN');
        applyLanguage();
    });

    // -- what editor.js and assist.js build on ---------------------------------------------------
    function replaceEditor(text) {  // as an edit: the editor's undo takes it back
        editor.focus();
        editor.setSelectionRange(0, editor.value.length);
        if (!document.execCommand('insertText', false, text)) {
            editor.value = text;
            editor.dispatchEvent(new Event('input'));
        }
    }

    function editDesc(atom, before, after, rule) {  // an atom's desc changed in place when it is found once
        const literal = JSON.stringify(before);
        const at = editor.value.indexOf(literal);
        if (at >= 0 && editor.value.indexOf(literal, at + 1) < 0) {
            editor.focus();
            editor.setSelectionRange(at, at + literal.length);
            if (!document.execCommand('insertText', false, JSON.stringify(after))) {
                editor.value = editor.value.slice(0, at) + JSON.stringify(after) + editor.value.slice(at + literal.length);
                editor.dispatchEvent(new Event('input'));
            }
            return;
        }
        rule.atoms[atom].desc = after;
        replaceEditor(JSON.stringify(rule, null, 2));
    }

    const hooks = {
        state: state, editor: editor, backdrop: backdrop, $: $, el: el, clear: clear, num: num, api: api,
        t: t, msg: msg, say: function (id, params) { return say(id, params, lang); },
        openInTester: openInTester, replaceEditor: replaceEditor, editDesc: editDesc,
        unsaved: function (key, vars) { setStatus($('save-status'), function () { return t(key, vars); }, ''); }
    };
    editing = installEditing(hooks);
    assist = installAssist(hooks);
    hooks.loadCatalog = loadCatalog;
    hooks.runDataset = runDataset;
    library = installLibrary(hooks);

    // -- start -------------------------------------------------------------------------------------
    setBlankCount(1);
    applyLanguage();
    loadMessages(api).then(applyLanguage);  // the message catalog: the server's messages in the page's language
    editor.value = NEW_RULE;
    loadCatalog('').then(function () { editor.dispatchEvent(new Event('input')); });
})();
