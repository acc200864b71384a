export function widget24(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
