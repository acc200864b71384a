export function widget09(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
