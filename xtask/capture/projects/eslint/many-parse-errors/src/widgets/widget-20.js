export function widget20(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
