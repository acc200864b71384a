export function widget28(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
