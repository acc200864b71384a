export function widget13(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
