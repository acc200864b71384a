export function widget14(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
