export function widget08(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
