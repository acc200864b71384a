export function widget05(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
