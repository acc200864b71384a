export function widget18(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
