export function widget30(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
