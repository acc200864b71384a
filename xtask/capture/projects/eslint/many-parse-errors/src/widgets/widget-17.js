export function widget17(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
