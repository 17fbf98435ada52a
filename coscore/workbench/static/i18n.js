// One language at a time (docs/workbench.md, "Languages"): the messages the server writes —
// diagnostics, errors, tune's and suggest's reasons — come with the id and parameters of
// coscore's message catalog (coscore/catalog), which the page loads once and renders here
// in its own language. A status is kept as a function of the language, so switching
// languages writes it again.

let CATALOG = null;            // {id: {en, zh}}, from POST api/workbench/messages
const waiting = [];

/** Load the catalog (once); `then` runs when it is there. */
export async function loadMessages(api) {
    if (CATALOG) return CATALOG;
    const reply = await api('messages', {});
    if (reply.status === 200 && reply.data && reply.data.messages) {
        CATALOG = reply.data.messages;
        waiting.splice(0).forEach(function (fn) { fn(); });
    }
    return CATALOG;
}

export function whenLoaded(fn) { if (CATALOG) fn(); else waiting.push(fn); }

/** A catalog message ({id, params}) in `lang`; `fallback` (the English text) when the catalog
 *  does not know it or is not loaded yet. Parameters that are messages are rendered too. */
export function render(said, lang, fallback) {
    if (!said || !CATALOG || !CATALOG[said.id]) return fallback === undefined ? '' : String(fallback);
    const template = CATALOG[said.id][lang] || CATALOG[said.id].en;
    const params = said.params || {};
    return template.replace(/\{([a-z_][a-z0-9_]*)\}/g, function (whole, name) {
        const value = params[name];
        if (value === undefined || value === null) return whole;
        return param(value, lang);
    });
}

/** A parameter in `lang`: a message of its own rendered, a list's items joined as the
 *  language joins them (the columns not taken as blanks), else the text as it is. */
function param(value, lang) {
    if (Array.isArray(value)) return value.map(function (v) { return param(v, lang); }).join(lang === 'zh' ? '、' : ', ');
    return typeof value === 'object' && value.id ? render(value, lang, '') : String(value);
}

/** The message of a diagnostic or an error reply in `lang`: its `said`, else its text. */
export function message(item, lang) {
    if (!item) return '';
    const text = item.message !== undefined ? item.message : item.error;
    return render(item.said, lang, text);
}

/** A catalog message by id with parameters, in `lang` (`null` when the catalog lacks it). */
export function say(id, params, lang) {
    if (!CATALOG || !CATALOG[id]) return null;
    return render({id: id, params: params || {}}, lang, null);
}

/** Set `node`'s status to `text` (a function of nothing, called now and again whenever the
 *  language changes) with its kind ('bad', 'good' or ''). */
export function sticky(node, text, kind) {
    node._say = typeof text === 'function' ? text : null;
    node.textContent = (typeof text === 'function' ? text() : text) || '';
    node.className = 'status' + (kind ? ' ' + kind : '');
}

/** Write every sticky status again (after the language changed). */
export function rewrite(root) {
    (root || document).querySelectorAll('.status').forEach(function (node) {
        if (node._say) node.textContent = node._say() || '';
    });
}
