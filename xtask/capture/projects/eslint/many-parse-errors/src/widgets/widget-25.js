export function widget25(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
