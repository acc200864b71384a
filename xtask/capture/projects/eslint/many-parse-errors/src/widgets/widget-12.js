export function widget12(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
