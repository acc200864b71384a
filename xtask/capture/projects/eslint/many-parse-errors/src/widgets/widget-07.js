export function widget07(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
