function render(count) {
  return `<ul>${'<li></li>'.repeat(count)}</ul>`;
}

describe('render', () => {
  test('renders a list', () => {
    expect(render(2)).toBe('<ul><li></li><li></li></ul>');
  });

  test('renders an empty list', () => {
    expect(render(0)).toBe('<ul/>');
  });
});
