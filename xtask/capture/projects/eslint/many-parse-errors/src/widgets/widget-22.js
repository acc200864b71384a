export function widget22(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
