export function widget06(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
