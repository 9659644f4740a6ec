// The research page's Markdown (an ES module used by research.js and research-plan.js): the model's text is untrusted,
// so raw HTML in it is shown as text (marked's html renderer escapes it) and the rendered HTML is sanitized by DOMPurify
// before it reaches the page. Both libraries are WebJars (/webjars/...), never a CDN.
import { marked } from '/webjars/marked/lib/marked.esm.js';
import DOMPurify from '/webjars/dompurify/dist/purify.es.mjs';

marked.use({
    gfm: true,
    renderer: {
        // Raw HTML in the model's Markdown (block or inline) is shown as text, never interpreted.
        html(token) {
            return escapeHtml(token.text);
        },
    },
});

/** @param {string} text @returns {string} the text with HTML's special characters escaped */
function escapeHtml(text) {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;');
}

/** Renders untrusted Markdown into an element, at most once per frame (many deltas a second become one render). */
export class Markdown {

    /** @param {HTMLElement} element where the HTML goes; its `data-source` holds the Markdown shown */
    constructor(element) {
        this.element = element;
        this.source = '';
        this.pending = false;
    }

    /** @param {string} markdown the whole text to show */
    show(markdown) {
        this.source = markdown;
        if (this.pending) {
            return;
        }
        this.pending = true;
        requestAnimationFrame(() => {
            this.pending = false;
            this.element.innerHTML = DOMPurify.sanitize(marked.parse(this.source));
            this.element.dataset.source = this.source;
        });
    }

    clear() {
        this.source = '';
        this.element.replaceChildren();
        delete this.element.dataset.source;
    }
}
