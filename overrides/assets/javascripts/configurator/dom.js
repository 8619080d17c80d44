// Writing to the page only what changed: a DOM property or attribute written with the value it
// already holds still restyles, and a new text node must be styled where changing the data of
// the one already there need not be.

export function setIfChanged(target, key, value) {
  if (target[key] !== value) target[key] = value;
}

export function setAttr(element, name, value) {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

const TEXT_NODE = 3; // Node.TEXT_NODE, named here so that Node's tests need no DOM

export function setText(element, text) {
  const node = element.firstChild;
  if (node && node === element.lastChild && node.nodeType === TEXT_NODE) {
    if (node.data !== text) node.data = text;
  } else if (element.textContent !== text) {
    element.textContent = text;
  }
}
