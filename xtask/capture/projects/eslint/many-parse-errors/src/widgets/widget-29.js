export function widget29(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
