export function widget11(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
