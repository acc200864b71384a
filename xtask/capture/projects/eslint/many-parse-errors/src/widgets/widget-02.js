export function widget02(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
