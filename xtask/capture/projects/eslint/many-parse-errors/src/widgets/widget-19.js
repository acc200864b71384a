export function widget19(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
