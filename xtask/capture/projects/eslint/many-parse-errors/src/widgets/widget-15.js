export function widget15(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
