export function widget23(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
