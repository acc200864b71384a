export function widget01(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
