export function widget04(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
