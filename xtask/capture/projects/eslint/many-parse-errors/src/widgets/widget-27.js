export function widget27(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
