export function widget26(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
