// The preview page tells the page that frames it (the web component) which card it shows and how tall it is.
// A script of its own, bundled as an IIFE: nothing it declares reaches the page's global scope.
export {};

const post = (): void => {
  if (window.parent === window) return;
  const message = {
    type: 'user-group-mock:embed',
    outcome: document.querySelector('main')?.dataset.outcome ?? 'unknown',
    // The card's own height, not the document's scrollHeight: that is never less than the frame, so a frame once
    // grown for a tall card would never shrink to a shorter one.
    height: document.body.getBoundingClientRect().height,
  };
  window.parent.postMessage(message, '*');
};
post();
new ResizeObserver(post).observe(document.body);
