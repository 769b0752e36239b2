// Draws every ```mermaid block of the site's pages. mdBook writes a fence as
// <pre><code class="language-mermaid">; each becomes a <pre class="mermaid"> holding the
// diagram's source, which mermaid (loaded before this script) replaces with an SVG.
(() => {
    for (const code of document.querySelectorAll('code.language-mermaid')) {
        const pre = document.createElement('pre');
        pre.className = 'mermaid';
        pre.textContent = code.textContent;
        code.parentElement.replaceWith(pre);
    }
    const dark = ['coal', 'navy', 'ayu'].some((t) => document.documentElement.classList.contains(t));
    mermaid.initialize({
        startOnLoad: false,
        securityLevel: 'strict',
        theme: dark ? 'dark' : 'default',
        sequence: { wrap: true },
    });
    mermaid.run({ querySelector: 'pre.mermaid' });
})();
