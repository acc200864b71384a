export function widget21(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
