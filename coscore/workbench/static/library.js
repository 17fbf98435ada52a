// coscore workbench alone (docs/workbench.md, "coscore workbench"): data files imported with a
// column mapping, exams opened with their items worst first, every saved version of a rule.
// Built on the hooks workbench.js gives; hidden when the page is served by coscore app.
// One language at a time: its words are the page's (library-words.js, through h.t), its
// statuses sticky (i18n.js: written again when the language changes), and what the server
// says — errors, a file's notes and refusals — rendered from the message catalog (h.msg).

import {sticky} from './i18n.js';

export function installLibrary(h) {
    const $ = h.$, el = h.el, clear = h.clear;
    const panel = $('library-panel');
    const lib = {upload: null, file: null, columns: [], exam: null, versions: [], features: null, versionsSeq: 0,
        datasets: []};

    function w(key, vars) { return h.t('lib.' + key, vars); }   // the page's words (library-words.js)

    function say(node, fn, kind) { sticky(node, fn, kind); }   // a status, written again in each language

    function said(text, id) { return h.msg({message: text, said: id}); }   // a server's note, by its catalog id

    function errorOf(reply) { return h.msg(reply.data); }   // an error reply: its catalog id, else its text

    // -- data files ------------------------------------------------------------------------------
    function options(select, names, chosen, blank) {
        clear(select);
        if (blank) select.appendChild(el('option', {value: '', text: w('map.none')}));
        names.forEach(function (name) {
            const option = el('option', {value: name, text: name});
            if (Array.isArray(chosen) ? chosen.indexOf(name) >= 0 : chosen === name) option.selected = true;
            select.appendChild(option);
        });
        if (!Array.isArray(chosen)) select.value = chosen || '';
    }

    function showPreview(found) {
        lib.columns = found.columns;
        const table = clear($('file-preview'));
        table.appendChild(el('thead', {}, [el('tr', {}, found.columns.map(function (c) { return el('th', {text: c}); }))]));
        table.appendChild(el('tbody', {}, found.rows.map(function (row) {
            return el('tr', {}, row.map(function (cell) { return el('td', {text: cell}); }));
        })));
        const m = found.mapping;
        options($('column-blanks'), found.columns, m.blanks, false);
        options($('column-label'), found.columns, m.label, true);
        options($('column-label2'), found.columns, m.label2, true);
        options($('column-group'), found.columns, m.group, true);
        options($('column-id'), found.columns, m.id, true);
        $('dataset-name').value = found.file.replace(/\.[^.]+$/, '');
        $('mapping').hidden = false;
        say($('file-status'), function () {
            let text = w('up.read', {f: found.file, c: found.columns.length, n: found.rows.length});
            (found.notes || []).forEach(function (n, i) {
                text += ' ' + w('notes', {m: said(n, (found.notes_said || [])[i])});
            });
            if (found.problem) text += ' ' + said(found.problem, found.problem_said);
            return text;
        }, found.problem ? 'bad' : '');
    }

    $('dataset-file').addEventListener('change', async function () {
        const file = this.files && this.files[0];
        if (!file) return;
        say($('file-status'), function () { return w('up.sending'); });
        $('mapping').hidden = true;
        let reply;
        try {
            const response = await fetch('workbench/upload?name=' + encodeURIComponent(file.name), {
                method: 'POST', headers: {'Content-Type': 'application/octet-stream'}, body: file
            });
            let data;
            try { data = await response.json(); } catch (e) { data = {error: response.statusText || 'no answer'}; }
            reply = {status: response.status, data: data};
        } catch (e) {
            reply = {status: 0, data: {error: String(e && e.message || e)}};
        }
        if (reply.status === 200 && h.state.compiling) {  // the defaults that fit what the rule reads
            const again = await h.api('preview', {upload: reply.data.upload, file: file.name, rule: h.state.compiling});
            if (again.status === 200) reply = again;
        }
        if (reply.status !== 200) { say($('file-status'), function () { return w('up.failed', {m: errorOf(reply)}); }, 'bad'); return; }
        lib.upload = reply.data.upload;
        lib.file = file.name;
        showPreview(reply.data);
    });

    function chosen(select) { return select.value || null; }

    $('dataset-import').addEventListener('click', async function () {
        if (!lib.upload) return;
        const blanks = Array.prototype.filter.call($('column-blanks').options, function (o) { return o.selected; })
            .map(function (o) { return o.value; });
        const body = {upload: lib.upload, file: lib.file, name: $('dataset-name').value.trim() || undefined,
            columns: {blanks: blanks, label: chosen($('column-label')), label2: chosen($('column-label2')),
                group: chosen($('column-group')), id: chosen($('column-id'))},
            rule: h.state.compiling || undefined};
        say($('file-status'), function () { return w('imp.running'); });
        const reply = await h.api('import', body);
        if (reply.status !== 200) { say($('file-status'), function () { return w('imp.failed', {m: errorOf(reply)}); }, 'bad'); return; }
        const d = reply.data;
        lib.upload = null;
        $('mapping').hidden = true;
        say($('file-status'), function () {
            let text = w('imp.done', {n: d.name, r: d.count});
            if (d.left_out && d.left_out.rows) {
                text += w('imp.leftout', {k: d.left_out.rows, v: Object.keys(d.left_out.values).map(function (v) {
                    return (v || '—') + ' ×' + d.left_out.values[v]; }).join(', ')});
            }
            return text;
        }, 'good');
        await h.loadCatalog($('rule-select').value);
        $('dataset-select').value = d.name;
        h.state.view = null;
        h.state.datasetBlanks = null;
        h.runDataset();
    });

    function drawDatasets(datasets) {
        lib.datasets = datasets;   // drawn again when the language changes
        const list = clear($('dataset-list'));
        datasets.forEach(function (d) {
            const cols = d.columns || {};
            const parts = [(cols.blanks || []).join(', ')];
            if (cols.label) parts.push(w('map.label') + ': ' + cols.label);
            list.appendChild(el('li', {'data-dataset': d.name}, [el('strong', {text: d.name}), ' · ' + w('rows', {n: d.count})
                + ' · ' + parts.join(' · ')]));
        });
    }

    // -- exams -----------------------------------------------------------------------------------------
    function figure(value) { return value === null || value === undefined ? '—' : h.num(value, 3); }

    function drawExam() {
        const list = clear($('exam-items'));
        const exam = lib.exam;
        if (!exam) return;
        exam.items.forEach(function (item) {
            let line;
            if (!exam.scored) line = (item.blanks || []).join(', ');
            else if (item.n === null || item.n === undefined) line = w('exam.nomarks');
            else {
                line = 'n ' + item.n + ' · QWK ' + figure(item.qwk.value)
                    + (item.qwk.ci ? ' [' + figure(item.qwk.ci[0]) + ', ' + figure(item.qwk.ci[1]) + ']' : '');
            }
            const li = el('li', {tabindex: '0', 'data-item': item.name}, [
                el('strong', {className: 'item-name', text: item.name}), ' ',
                el('span', {className: 'figure-line', text: line}), ' ',
                el('span', {className: 'flags', text: (item.flags || []).join(' · ')})
            ]);
            const open = function () { openItem(item, li); };
            li.addEventListener('click', open);
            li.addEventListener('keydown', function (e) { if (e.key === 'Enter') open(); });
            list.appendChild(li);
        });
    }

    async function openItem(item, li) {
        Array.prototype.forEach.call($('exam-items').children, function (x) { x.classList.remove('chosen'); });
        li.classList.add('chosen');
        await h.loadCatalog(item.rule_name);   // the item's rule in the editor: stored as a rule of its own
        if (lib.exam && lib.exam.dataset && item.view) {
            $('dataset-select').value = lib.exam.dataset;
            h.state.view = {view: item.view};
            h.state.datasetBlanks = null;
            h.state.good = null;   // the dataset view waits for the item's rule, checked: then it is scored
        }
        $('rule-select').value = item.rule_name;
        $('rule-select').dispatchEvent(new Event('change'));
        testerBlanks(item.blanks.length);
    }

    function testerBlanks(count) {  // the tester with one field per blank of the item
        const fields = function () { return $('answer-fields').querySelectorAll('textarea').length; };
        for (let guard = 0; fields() < count && guard < 100; guard++) $('add-blank').click();
        for (let guard = 0; fields() > Math.max(count, 1) && guard < 100; guard++) $('remove-blank').click();
    }

    async function openExam(body) {
        say($('exam-status'), function () { return w('exam.running'); });
        const reply = await h.api('exam', body);
        if (reply.status !== 200) { say($('exam-status'), function () { return w('exam.failed', {m: errorOf(reply)}); }, 'bad'); return; }
        lib.exam = reply.data;
        say($('exam-status'), function () {
            return w(lib.exam.scored ? 'exam.done' : 'exam.nodata', {e: lib.exam.name, n: lib.exam.items.length});
        }, 'good');
        drawExam();
        await h.loadCatalog($('rule-select').value);
    }

    $('exam-file').addEventListener('change', async function () {
        const file = this.files && this.files[0];
        if (!file) return;
        const text = await file.text();
        await openExam({text: text, file: file.name, dataset: $('dataset-select').value || null});
    });

    // -- versions ------------------------------------------------------------------------------------------
    async function loadVersions() {
        const name = $('rule-select').value;
        const seq = ++lib.versionsSeq;
        let reply = null;
        if (name && lib.features && lib.features.versions) {
            reply = await h.api('versions', {name: name});
            if (seq !== lib.versionsSeq) return;  // a newer list is on its way
        }
        const list = clear($('rule-versions'));
        clear($('version-diff'));
        lib.versions = [];
        if (!reply || reply.status !== 200) { list.appendChild(el('li', {className: 'status', text: w('ver.none')})); return; }
        lib.versions = reply.data.versions;
        lib.versions.forEach(function (v, i) {
            const buttons = [];
            const load = el('button', {type: 'button', text: w('ver.load')});
            load.addEventListener('click', function () { h.replaceEditor(v.rule); });
            buttons.push(load);
            if (i + 1 < lib.versions.length) {
                const diff = el('button', {type: 'button', 'data-action': 'diff', text: w('ver.diff')});
                diff.addEventListener('click', function () { showDiff(name, lib.versions[i + 1].number, v.number); });
                buttons.push(diff);
            }
            if (i > 0) {
                const revert = el('button', {type: 'button', 'data-action': 'revert', text: w('ver.revert')});
                revert.addEventListener('click', function () { revertTo(name, v.number); });
                buttons.push(revert);
            }
            list.appendChild(el('li', {'data-version': String(v.number)}, [
                el('strong', {text: 'v' + v.number}), ' ',
                el('span', {className: 'figure-line', text: (v.saved || '') + note(v.note)}), ' ',
                el('span', {className: 'agreement-of', 'data-testid': 'version-agreement'})
            ].concat(buttons)));
        });
    }

    function note(text) {  // why a version was saved: "exam:FILE", "revert:N", "file:PATH"
        if (!text) return '';
        const at = text.indexOf(':');
        const kind = text.slice(0, at), what = text.slice(at + 1);
        const key = {exam: 'ver.exam', revert: 'ver.revertnote', file: 'ver.file'}[kind];
        return ' · ' + (key ? w(key, {x: what}) : text);
    }

    async function showDiff(name, from, to) {
        const box = clear($('version-diff'));
        const reply = await h.api('diff', {name: name, from: from, to: to});
        if (reply.status !== 200) { box.textContent = errorOf(reply); return; }
        reply.data.lines.forEach(function (line) {
            const kind = line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : '';
            box.appendChild(el('span', {className: kind, text: line + '\n'}));
        });
    }

    async function revertTo(name, number) {
        const reply = await h.api('revert', {name: name, number: number});
        if (reply.status !== 200) { say($('save-status'), function () { return errorOf(reply); }, 'bad'); return; }
        await h.loadCatalog(name);
        $('rule-select').value = name;
        $('rule-select').dispatchEvent(new Event('change'));
        say($('save-status'), function () { return w('ver.reverted', {v: reply.data.version}); }, 'good');
    }

    $('versions-agreement').addEventListener('click', async function () {
        const dataset = $('dataset-select').value;
        const cells = $('rule-versions').querySelectorAll('[data-version]');
        for (const li of cells) {
            const cell = li.querySelector('.agreement-of');
            if (!dataset) { cell.textContent = w('ver.nodata'); continue; }
            const v = lib.versions.find(function (x) { return String(x.number) === li.getAttribute('data-version'); });
            cell.textContent = w('ver.scoring');
            for (;;) {
                const reply = await h.api('dataset', {dataset: dataset, rule: v.rule, size: 1, columns: h.state.view || undefined});
                if (reply.status === 202) { await new Promise(function (r) { setTimeout(r, 150); }); continue; }
                if (reply.status !== 200) { cell.textContent = w('ver.failed', {m: errorOf(reply)}); break; }
                const a = reply.data.agreement;
                cell.textContent = a ? 'QWK ' + figure(a.qwk.value) + ' · n ' + a.n : w('exam.nomarks');
                cell.setAttribute('data-qwk', a && a.qwk.value !== null ? String(a.qwk.value) : '');
                break;
            }
        }
    });

    $('rule-select').addEventListener('change', loadVersions);

    // -- what workbench.js calls ---------------------------------------------------------------------------
    function words() {  // the statuses are written again by workbench.js (i18n.js's rewrite)
        document.querySelectorAll('[data-lib]').forEach(function (node) { node.textContent = w(node.getAttribute('data-lib')); });
        const none = $('mapping').querySelectorAll('option[value=""]');
        none.forEach(function (option) { option.textContent = w('map.none'); });
    }

    return {
        afterCatalog: function (catalog) {
            lib.features = catalog.features || {};
            panel.hidden = !lib.features.files;
            const pages = $('app-pages');
            if (pages) pages.hidden = lib.features.app === false;
            if (lib.features.files) drawDatasets(catalog.datasets || []);
            loadVersions();
        },
        afterLanguage: function () {
            words();
            drawExam();
            loadVersions();
            if (lib.features && lib.features.files) drawDatasets(lib.datasets || []);
        }
    };
}
