export function widget10(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
