function status(code) {
  return code < 400 ? 'ok' : 'error';
}

describe('api', () => {
  test('answers ok', () => {
    expect(status(200)).toBe('ok');
  });

  test('reports a missing page', () => {
    expect(status(404)).toBe('not found');
  });
});
